#!/bin/sh
# Install ns-3 from PyPI into benches/peers/.venv-ns3 and compile the peer program against
# the headers and libraries the wheel ships (its Python bindings take ~10 s to import, so
# the benchmark runs a C++ program instead). Idempotent: does only what is missing or stale.
#
#   benches/peers/setup-ns3.sh            # venv + wheel + build/workload + build/dumbbell
#   PYTHON=python3.12 NS3_SPEC='ns3==3.44.*' benches/peers/setup-ns3.sh
#
# Needs a C++20 compiler (g++ >= 10 or clang++ >= 13; CXX overrides) and network access
# for the first pip install. Prints the path of the dumbbell program last.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
venv="$here/.venv-ns3"
spec=${NS3_SPEC:-ns3==3.44.*}
python=${PYTHON:-$(command -v python3.11 || command -v python3)}
cxx=${CXX:-g++}

if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
if ! "$venv/bin/python" -m pip show ns3 >/dev/null 2>&1; then
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet "$spec"
fi

# The wheel puts a CMake install tree in site-packages/ns3: include/ns3/*.h, lib64/libns3.X-*.so.
# Found on disk: importing ns would load every module through cppyy.
prefix=$("$venv/bin/python" -c 'import pathlib, sysconfig; print(pathlib.Path(sysconfig.get_paths()["platlib"]) / "ns3")')
version=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("ns3"))')
libdir=
for d in lib64 lib; do
    if ls "$prefix/$d"/libns3*-core*.so >/dev/null 2>&1; then libdir="$prefix/$d"; break; fi
done
if [ -z "$libdir" ] || [ ! -f "$prefix/include/ns3/core-module.h" ]; then
    echo "setup-ns3: no ns-3 headers or libraries under $prefix (wheel layout changed?)" >&2
    exit 1
fi
# libns3.44-core.so -> "ns3.44"
tag=$(basename "$(ls "$libdir"/libns3*-core*.so | head -n 1)" | sed -e 's/^lib//' -e 's/-core.*$//')

# build NAME: compile ns3/NAME.cc into ns3/build/NAME unless it is up to date.
build() {
    out="$here/ns3/build/$1"
    src="$here/ns3/$1.cc"
    stamp="$here/ns3/build/.$1-built-with"
    want="$cxx $version $libdir"
    if [ ! -x "$out" ] || [ "$src" -nt "$out" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        mkdir -p "$here/ns3/build"
        echo "setup-ns3: compiling $src against ns-3 $version ($libdir)" >&2
        # The wheel's libraries are built with NS3_ASSERT and NS3_LOG on; some class layouts
        # depend on them (UdpClient), so the program must see the same definitions.
        "$cxx" -O2 -std=c++20 -w \
            -DNS3_ASSERT_ENABLE -DNS3_LOG_ENABLE "-DNS3_PEER_VERSION=\"$version\"" \
            -I"$prefix/include" "$src" -o "$out.tmp" \
            -L"$libdir" -Wl,-rpath,"$libdir" \
            -l"$tag"-applications -l"$tag"-internet -l"$tag"-traffic-control \
            -l"$tag"-point-to-point -l"$tag"-network -l"$tag"-core
        mv "$out.tmp" "$out"
        echo "$want" > "$stamp"
    fi
}

# The workload peer (workload_compare.py) first: the last line printed is the dumbbell's path.
build workload
build dumbbell
echo "$out"
