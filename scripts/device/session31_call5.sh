# Session 31, call 5 (carry [".device/bin", ".device/noepi"]; .device/noepi/r4tune is this commit's
# r4tune built with R4G_EPI_PACK 0 in the kernel header, then reverted): the packed epilogue's effect
# on the sweep's winners on one machine. Calls 2 and 4 ran on different H100s (~1% apart on
# unchanged ldg winners), so their difference cannot price it. dflash cold twice: packed, then not.
set -u
source "$(dirname "$0")/env.sh"
bash scripts/device/sweep_ab.sh bin noepi 1
