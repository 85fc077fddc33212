# lit configuration for the mmc test suite.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "MM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mm_obj_root, "test")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(["mmc-opt", "mmc", "mmrun", "mmrt-example-generate"], [config.mm_tools_dir])

# ../shared (models, conformance cases) sits beside the checkout; tests that need it
# declare `REQUIRES: shared` and are reported UNSUPPORTED when it is absent.
shared = os.path.normpath(os.path.join(config.mm_src_root, "..", "shared"))
config.substitutions.append(("%shared", shared))
config.substitutions.append(("%models", os.path.join(config.mm_src_root, "models")))
# Test models in other export flavours (test/models/README.md).
config.substitutions.append(("%testmodels", os.path.join(config.mm_src_root, "test", "models")))
# Debian's python3 has the onnx and numpy packages tests use. use_default_substitutions()
# already maps %python to the interpreter running lit (e.g. a pyenv one without them), and
# the first matching substitution wins: replace it.
config.substitutions = [s for s in config.substitutions if s[0] != "%python"]
config.substitutions.append(("%python", "/usr/bin/python3"))
if os.path.isdir(os.path.join(shared, "models")):
    config.available_features.add("shared")
elif os.environ.get("CI") == "true":
    # CI has ../shared beside the clone: a missing one is an error there, not a skip.
    lit_config.fatal("../shared not found (" + shared + "), and CI=true requires it")
else:
    lit_config.warning("../shared not found: the tests that need it are skipped (UNSUPPORTED)")
if config.mm_enable_cuda:
    config.available_features.add("cuda")
    # A usable GPU (the CUDA end-to-end tests run only there).
    import shutil, subprocess
    smi = shutil.which("nvidia-smi")
    if smi and subprocess.run([smi, "-L"], capture_output=True).returncode == 0:
        config.available_features.add("cuda-device")
    else:
        lit_config.note("no CUDA device: tests that need one are skipped")
