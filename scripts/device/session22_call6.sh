# Session 22, call 6 (binaries packed after the R4L_SMEM_PAD commit): the acceptance sweeps
# (dflash cold, llama3-8b cold; no warm run, for device time), then the pad's A/B on four w4a8
# configs (the default against R4L_SMEM_PAD=0, and against the pad moved to quant_act,
# R4_QA_SMEM_PAD: is it the pair's other kernel's carveout?), and on three MXFP4 ldg configs (no
# cluster launch: does the pad help them?). The race-style line now covers the fp8 kinds too.
# (R4L_SMEM_PAD and R4_QA_SMEM_PAD exist only in 368e399..1ca877e: no effect, removed.)
set -u
B=.device/bin
R4_SKIP_WARM=1 bash scripts/device/sweeps.sh > $OUT/sweeps-stdout.txt 2>&1
{
  R4_AB_SETS="R4L_SMEM_PAD=0|R4L_SMEM_PAD=0+R4_QA_SMEM_PAD=8192" R4_AB_CONFIGS="w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:2,4,1,1,0,2,2@down@16 w4a8:4,16,1,1,1,2,4@hidden_proj@1 w4a8:4,8,1,2,1,2,2@kernel_proj@64" \
    timeout 120 bash scripts/device/ab_define.sh
  R4_AB_SETS="R4L_SMEM_PAD=8192" R4_AB_CONFIGS="mxfp4:4,8,1,1,1,2,4@qkv@16 mxfp4:4,4,1,1,0,2,2@gate_up@16 mxfp4:2,16,1,1,1,2,2@hidden_proj@16" \
    timeout 90 bash scripts/device/ab_define.sh
} > $OUT/pad-ab.txt 2>&1
cut -c1-160 $OUT/sweeps-stdout.txt
grep -E "us \(|PDL|race" $OUT/pad-ab.txt | sed -e 's/ (activations and outputs pooled[^)]*)//' -e 's/, cluster split-K.*//' | cut -c1-150
