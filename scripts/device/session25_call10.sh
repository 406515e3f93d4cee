# Session 25, call 10: the sm90a producer by precomputed pointers and one L2 policy (R4G_PFAST=1)
# against as is; call 9 found the producer's per-stage work on the critical path (stream-K: a
# division per stage cost 3-4 us over 40 stages).
set -u
export R4_AB_SETS="R4G_PFAST=1"
export R4_AB_CONFIGS="w4a8:8,1,4,2,1,1,4@gate_up@64 w4a8:8,4,4,2,0,1,4@down@64 w4a8:8,1,2,2,1,1,4@gate_up@32 w4a8fp8:8,1,4,2,0,1,4@gate_up@64 w4a8:4,16,1,1,0,1,8@hidden_proj@16 w4a16_bf16:8,2,2,1,1,1,6@gate_up@64 w4a8:8,4,3,2,1,1,4@qkv@48 w4a8:8,1,4,1,1,1,4@qkv@64"
bash "$(dirname "$0")/ab_define.sh"
