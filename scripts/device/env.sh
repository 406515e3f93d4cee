# Sourced by the scripts in scripts/device/ (they run on the H200 through the device tool, from
# the repository root): where the carried binaries are (scripts/device/pack.sh), where outputs
# go, and the CUDA toolkit on the paths.
B=${B:-.device/bin}
OUT=${OUT:-/tmp/r4out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
