# Sourced by scripts/device/*.sh: Debian 12's Open MPI carried in .device/mpi/openmpi.tar.xz
# (scripts/device/pack_mpi.sh), unpacked under /tmp and made usable from there: Open MPI and its
# PMIx are told where they were unpacked (they were built for /usr), and mpirun, orted and
# libmpi.so.40 come first on the paths. Sets R4_MPIRUN (empty when no Open MPI is there to use;
# an installed one is used then, if any).
R4_MPI_HOME=${R4_MPI_HOME:-${TMPDIR:-/tmp}/r4mpi}
if [[ -f $PWD/.device/mpi/openmpi.tar.xz && ! -x $R4_MPI_HOME/usr/bin/orterun ]]; then
  mkdir -p "$R4_MPI_HOME" && tar -C "$R4_MPI_HOME" -xJf "$PWD/.device/mpi/openmpi.tar.xz"
fi
R4_MPIRUN=""
if [[ -x $R4_MPI_HOME/usr/bin/orterun ]]; then
  _pmix=$R4_MPI_HOME/usr/lib/x86_64-linux-gnu/pmix2
  export OPAL_PREFIX=$R4_MPI_HOME/usr
  export PMIX_PREFIX=$_pmix PMIX_LIBDIR=$_pmix/lib PMIX_DATADIR=$_pmix/share \
    PMIX_PKGDATADIR=$_pmix/share/pmix PMIX_PKGLIBDIR=$_pmix/lib/pmix
  export PATH=$R4_MPI_HOME/usr/bin:$PATH
  export LD_LIBRARY_PATH=$R4_MPI_HOME/usr/lib/x86_64-linux-gnu:$R4_MPI_HOME/usr/lib/x86_64-linux-gnu/openmpi/lib:$_pmix/lib:$R4_MPI_HOME/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
  R4_MPIRUN=$R4_MPI_HOME/usr/bin/mpirun.openmpi
elif command -v mpirun >/dev/null; then
  R4_MPIRUN=$(command -v mpirun)
fi
# The device machine runs commands as root; Open MPI refuses root unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
