#!/usr/bin/env bash
# Debian 12's Open MPI for a device run, as .device/mpi/openmpi.tar.xz (git-ignored): the H200
# machine (Ubuntu 24.04) has no Open MPI and no package registry, and r4tune loads libmpi only
# when mpirun starts it (tuner/mpi/world.hpp). Name `.device/mpi` in the run's `carry` next to
# `.device/bin`; scripts/device/mpi_env.sh unpacks it there (under /tmp, never into `/`) and
# points mpirun at it (OPAL_PREFIX, PMIx's folders, PATH, LD_LIBRARY_PATH). Open MPI 4.1.4, its
# PMIx, hwloc, libevent, and the transports its components link (UCX, libfabric, verbs, PSM), so
# no component fails to load there; the Fortran, Java and OpenSHMEM parts are left out. About
# 5 MB compressed (19 MB unpacked), against the call's 64 MiB.
set -euo pipefail
cd "$(dirname "$0")/../.."
pkgs=(openmpi-bin libopenmpi3 openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7
      libevent-pthreads-2.1-7 libfabric1 libucx0 libibverbs1 ibverbs-providers librdmacm1
      libpsm2-2 libpsm-infinipath1 libmunge2 libnl-3-200 libnl-route-3-200 libnuma1 libatomic1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -qq "${pkgs[@]}")
root="$tmp/root"
mkdir -p "$root"
for d in "$tmp"/*.deb; do dpkg-deb -x "$d" "$root"; done
# Not needed to run a C program: documentation, Fortran, Java and OpenSHMEM.
rm -rf "$root"/usr/share/doc "$root"/usr/share/man "$root"/usr/share/lintian
rm -f "$root"/usr/lib/x86_64-linux-gnu/libmpi_mpifh* "$root"/usr/lib/x86_64-linux-gnu/libmpi_usempi* \
  "$root"/usr/lib/x86_64-linux-gnu/libmpi_java* "$root"/usr/lib/x86_64-linux-gnu/liboshmem* \
  "$root"/usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi_mpifh* \
  "$root"/usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi_usempi* \
  "$root"/usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi_java* \
  "$root"/usr/lib/x86_64-linux-gnu/openmpi/lib/liboshmem*
rm -rf .device/mpi
mkdir -p .device/mpi
tar -C "$root" -cJf .device/mpi/openmpi.tar.xz .
du -sh "$root" .device/mpi/openmpi.tar.xz
