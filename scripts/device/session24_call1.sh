# Session 24, call 1: (a) r4d's GPU tests and bench with the committed tables (b93a136: from
# session 23 call 4's sweep; they had not run with them); (b) two kernel experiments, both
# defines that default to off (the PTX of every default build is unchanged, compared locally):
#   R4L_PRE2=1  (ldg, w4a8/MXFP4): the second batch's weights before the PDL wait too;
#   R4G_TPIPE=1 (sm90a, NPW 2): tile 0's promotion while tile 1's wgmmas run.
# SASS first (the loads before the wait), then race-style A/B, then the verification runs.
set -u
B=.device/bin
R4_SW_DEFINES="|-DR4L_PRE2=1" R4_SW_CONFIGS="gemm_w4a8_nt:4,2,1,1,0,2,2 gemm_w4a8_nt:4,16,1,1,1,2,4 gemm_mxfp4a8fp8_nt:4,8,1,1,1,2,4" \
  timeout 100 bash scripts/device/sass_wait.sh > $OUT/sass-wait.txt 2>&1
cat $OUT/sass-wait.txt | cut -c1-200
R4_AB_SETS="R4L_PRE2=1" R4_AB_CONFIGS="w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:4,2,1,1,0,2,2@gate_up@16 w4a8:2,4,1,1,0,2,2@down@16 w4a8:4,8,1,2,0,2,4@qkv@16 w4a8:2,4,1,1,1,2,4@o@16 w4a8:4,16,1,1,1,2,4@hidden_proj@1 w4a8:4,8,1,2,1,2,2@kernel_proj@64 w4a8:2,1,1,4,0,2,2@gate_up@48 mxfp4:4,8,1,1,1,2,4@qkv@16 mxfp4:4,4,1,1,1,2,2@gate_up@16" \
  timeout 240 bash scripts/device/ab_define.sh > $OUT/pre2-ab.txt 2>&1
R4_AB_SETS="R4G_TPIPE=1" R4_AB_CONFIGS="w4a8:8,1,4,2,1,1,4@gate_up@64 w4a8:8,4,4,2,0,1,4@down@64 w4a8fp8:8,1,4,2,0,1,4@gate_up@64 w4a8fp8:8,4,4,2,0,1,4@down@64 w4a8fp8:8,4,3,2,1,1,4@down@48 w4a8fp8:4,4,2,2,1,1,4@gate_up@32 w4a16_bf16:4,2,2,2,0,1,4@gate_up@64" \
  timeout 200 bash scripts/device/ab_define.sh > $OUT/tpipe-ab.txt 2>&1
for f in pre2-ab tpipe-ab; do
  echo "== $f"
  grep -E "us \(|race|error|FAIL" $OUT/$f.txt | sed -e 's/ (activations and outputs pooled[^)]*)//' -e 's/, cluster split-K.*//' -e 's/ ([0-9]* GB\/s)//' | cut -c1-160
done
# SASS kept for reading here (no cuobjdump on this side): w4a8fp8 ldg with the fence off / on
# (why its GEMM alone ran 9% slower with it, session 23), the sm90a TPIPE pair.
mkdir -p /tmp/sass
for fe in 0 1; do
  nvcc -arch=sm_90a -cubin -I . -DR4_WV=4 -DR4_SK=8 -DR4_MB=1 -DR4_NPW=1 -DR4_NT=1 -DR4_GEN=2 -DR4_ST=2 \
    -DR4L_WAIT_FENCE=$fe -o /tmp/sass/f.cubin kernels/gemm_w4a8fp8_nt.cu && cuobjdump -sass /tmp/sass/f.cubin > /tmp/sass/w4a8fp8-fence$fe.sass
done
for tp in 0 1; do
  nvcc -arch=sm_90a -cubin -I . -DR4_WV=8 -DR4_SK=1 -DR4_MB=4 -DR4_NPW=2 -DR4_NT=1 -DR4_GEN=1 -DR4_ST=4 \
    -DR4G_TPIPE=$tp -o /tmp/sass/t.cubin kernels/gemm_w4a8_nt.cu && cuobjdump -sass /tmp/sass/t.cubin > /tmp/sass/w4a8-sm90a-tpipe$tp.sass
done
tar -czf $OUT/sass.tar.gz -C /tmp/sass --exclude='*.cubin' . ; rm -f $OUT/ab.log
wc -l /tmp/sass/*.sass
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B && tar -cf $B/src.tar --exclude=./.device . && \
  bash scripts/device/gpu_tests.sh; R4D_GTESTS_DONE=1 R4D_SKIP_EXAMPLE=1 bash scripts/device/r4d.sh
