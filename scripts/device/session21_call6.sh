# Session 21, calls 6 and 7: a branch's r4kern ($B/r4kern; call 6 exp/leader-reduce, the
# leader-slot cluster reduction; call 7 exp/st8, 8-byte output stores) against the main line's
# ($B/r4kern_base), same call, through scripts/device/ab_bins.sh. (The calls themselves ran an
# equivalent inline loop with the base binary in $B/base; logs -559fef6-leader-reduce-ab-call6
# and -af93f4e-st8-ab-call7.)
set -u
R4_AB_CONFIGS="w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@1 w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@16 w4a16_bf16:2,8,1,1,1,2,4@kernel_proj@1 w4a16_bf16:2,4,1,1,0,2,2@o@1 w4a16_bf16:2,4,1,1,0,2,2@o@16 w4a16_bf16:4,8,1,1,0,2,2@qkv@1 w4a16_bf16:2,8,1,2,0,2,2@qkv@16 w4a16_bf16:4,2,1,1,0,2,2@gate_up@1 w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:4,2,1,1,0,2,2@gate_up@16 w4a8:2,4,1,1,0,2,2@down@16 w4a8:2,8,1,1,0,2,2@qkv@16" \
  bash scripts/device/ab_bins.sh
