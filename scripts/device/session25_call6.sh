# Session 25, call 6: Nsight Compute on gate_up M = 64 at 68 blocks (SK 1) and at 132 (stream-K,
# NPW 1; NPW 2 without the reduction), and the bare ring: which shared resource caps the rate
# when twice the SMs run (call 3: 38.4 us either way).
set -u
export R4_NCU_COMPUTE=1
export R4_NCU_CONFIGS="w4a8:8,1,4,2,1,1,4@gate_up@64 w4a8:8,4,4,1,1,1,4@gate_up@64@R4G_STREAMK=132 w4a8:8,4,4,2,1,1,4@gate_up@64@R4G_STREAMK=132+R4G_LESION=8 w4a8:8,1,4,2,1,1,4@gate_up@64@R4G_LESION=3"
bash "$(dirname "$0")/stalls.sh"
