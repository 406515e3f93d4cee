#!/usr/bin/env bash
# Debian 12's Open MPI, unpacked into .device/mpi (git-ignored) for a device run: the H200
# machine (Ubuntu 24.04) has no Open MPI and no package registry, and r4tune loads libmpi only
# when mpirun starts it (tuner/mpi/world.hpp). Name `.device/mpi` in the run's `carry` next to
# `.device/bin`; scripts/device/scaleout.sh finds it there and points mpirun at it (OPAL_PREFIX,
# PATH, LD_LIBRARY_PATH). The packages are unpacked into that folder only, never into `/`.
# About 20 MB: Open MPI 4.1.4, its PMIx, hwloc, libevent, and the transports its components
# link (UCX, libfabric, verbs, PSM), so no component fails to load there.
set -euo pipefail
cd "$(dirname "$0")/../.."
pkgs=(openmpi-bin libopenmpi3 openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7
      libevent-pthreads-2.1-7 libfabric1 libucx0 libibverbs1 ibverbs-providers librdmacm1
      libpsm2-2 libpsm-infinipath1 libmunge2 libnl-3-200 libnl-route-3-200 libnuma1 libatomic1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -qq "${pkgs[@]}")
rm -rf .device/mpi
mkdir -p .device/mpi
for d in "$tmp"/*.deb; do dpkg-deb -x "$d" .device/mpi; done
# Documentation is not needed to run.
rm -rf .device/mpi/usr/share/doc .device/mpi/usr/share/man .device/mpi/usr/share/lintian
du -sh .device/mpi
