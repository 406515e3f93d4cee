#!/usr/bin/env bash
# Installs what r4tune's build and tests need on a fresh Debian 12 machine, idempotently.
# Quiet when everything is present. The CUDA 13 toolkit is expected at /usr/local/cuda (it comes
# with these machines); we only check for it and say what is missing.
set -euo pipefail

pkgs=(build-essential cmake ninja-build pkg-config git
      libsqlite3-dev sqlite3 libfmt-dev libboost-program-options-dev
      libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libtomlplusplus-dev
      pybind11-dev python3-dev python3-numpy libtbb-dev
      libamdhip64-dev clang libclang-rt-14-dev clang-format
      clang-19 lld-19 llvm-19
      chromium openmpi-bin libopenmpi-dev)
# Extra packages only for regenerating the committed test fixtures from the seeds' Python.
if [[ "${R4TUNE_FIXTURE_TOOLS:-0}" == 1 ]]; then pkgs+=(python3-torch); fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cuda=${CUDA_HOME:-/usr/local/cuda}
problems=()
[[ -x $cuda/bin/nvcc ]] || problems+=("nvcc not found at $cuda/bin/nvcc")
[[ -f $cuda/include/nvrtc.h ]] || problems+=("NVRTC headers missing ($cuda/include/nvrtc.h)")
ls "$cuda"/lib64/libnvrtc.so* >/dev/null 2>&1 || problems+=("libnvrtc.so missing under $cuda/lib64")
[[ -f $cuda/include/cublasLt.h ]] || problems+=("cuBLASLt header missing ($cuda/include/cublasLt.h)")
if ((${#problems[@]})); then
  echo "setup: the CUDA 13 toolkit is incomplete: ${problems[*]}" >&2
  echo "setup: install CUDA 13.0 to $cuda (or set CUDA_HOME) and run again" >&2
  exit 1
fi
