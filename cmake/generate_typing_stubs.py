#!/usr/bin/env python3
"""Typing stubs (.pyi) for the cv2 of a cudacca build, made by OpenCV's own generator.

    generate_typing_stubs.py OPENCV_SOURCE_DIR BINDINGS_GENERATOR_DIR OUTPUT_DIR

BINDINGS_GENERATOR_DIR is the build's modules/python_bindings_generator: its headers.txt (OpenCV 4.x) or
gen_python_config.json (5.x) says which headers the bindings came from.

OpenCV's python3 bindings generator (modules/python/src2/gen2.py) writes the stubs only when every one of
its PREDEFINED_TYPES resolves, and some of them name classes of modules that cudacca's minimal build leaves
out (FeatureDetector -> Feature2D of features2d, the G-API aliases -> GMat, ...): the whole generation then
fails with a warning. Here the same generator runs on the same header list, with those unresolvable predefined aliases dropped first (and, transitively, the aliases
that name them); everything else is OpenCV's code, unchanged. Writes OUTPUT_DIR/cv2/__init__.pyi, the
submodules' stubs, cv2/typing/ and cv2/py.typed. Exit status 1 if no stubs came out.
"""
import contextlib
import io
import os
import sys
import tempfile


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src2 = os.path.join(sys.argv[1], "modules", "python", "src2")
    generator_dir, output_dir = sys.argv[2], os.path.abspath(sys.argv[3])
    sys.path.insert(0, src2)
    import typing_stubs_generation.generation as generation
    from typing_stubs_generation.predefined_types import PREDEFINED_TYPES

    original = generation._generate_typing_module

    from typing_stubs_generation.nodes.type_node import AliasRefTypeNode

    def names_a_dropped_alias(node, seen=None):
        """True if the type tree of `node` refers to a predefined alias that is no longer there."""
        seen = seen if seen is not None else set()
        if id(node) in seen:
            return False
        seen.add(id(node))
        if isinstance(node, AliasRefTypeNode) and node.ctype_name not in PREDEFINED_TYPES:
            return True
        children = list(getattr(node, "items", None) or [])
        for attribute in ("value", "positive_branch_type", "negative_branch_type"):
            child = getattr(node, attribute, None)
            if child is not None and not isinstance(child, (str, int, float)):
                children.append(child)
        return any(names_a_dropped_alias(child, seen) for child in children)

    def generate_without_unresolvable(root, output_path):
        # Drop what does not resolve in this build's tree, then, until nothing changes, the aliases that
        # name a dropped one (GProtoArgs names GProtoArg).
        dropped = []
        while True:
            before = len(dropped)
            for name, node in list(PREDEFINED_TYPES.items()):
                try:
                    node.resolve(root)
                    unresolvable = names_a_dropped_alias(node)
                except Exception:  # TypeResolutionError
                    unresolvable = True
                if unresolvable:
                    dropped.append(name)
                    del PREDEFINED_TYPES[name]
            if len(dropped) == before:
                break
        if dropped:
            print("generate_typing_stubs: predefined types left out (their classes are not in this build):",
                  ", ".join(sorted(dropped)))
        return original(root, output_path)

    generation._generate_typing_module = generate_without_unresolvable

    # 5.x also refines functions of named classes by hand (Feature2D.detectAndCompute, ...): those of
    # classes that this build does not have are skipped.
    import typing_stubs_generation.api_refinement as refinement
    from typing_stubs_generation import ast_utils
    missing = tuple(getattr(ast_utils, e) for e in ("ScopeNotFoundError", "SymbolNotFoundError") if hasattr(ast_utils, e))
    skipped = []

    def skipping_missing(refine):
        def refine_if_present(root, symbol_name):
            try:
                refine(root, symbol_name)
            except missing:
                skipped.append(str(symbol_name))
        return refine_if_present

    for symbol_name, refine in list(refinement.NODES_TO_REFINE.items()):
        refinement.NODES_TO_REFINE[symbol_name] = skipping_missing(refine)

    import gen2
    config_json = os.path.join(generator_dir, "gen_python_config.json")
    if os.path.isfile(config_json):  # OpenCV 5
        import json
        with open(config_json) as f:
            config = gen2.PythonWrapperGenerator.Config(**json.load(f))
        gen_args = (config.headers, config.preprocessor_definitions)
    else:  # OpenCV 4
        with open(os.path.join(generator_dir, "headers.txt")) as f:
            gen_args = ([line.strip() for line in f if line.strip()],)
    with tempfile.TemporaryDirectory() as scratch:
        # The generator also writes the C++ binding sources into its output folder: those go to scratch,
        # the stubs are then moved out of it.
        log = io.StringIO()
        with contextlib.redirect_stdout(log):
            gen2.PythonWrapperGenerator().gen(gen_args[0], scratch, *gen_args[1:])
        stubs = os.path.join(scratch, "cv2")
        if not os.path.isfile(os.path.join(stubs, "__init__.pyi")):
            print(log.getvalue()[-4000:])
            sys.exit("generate_typing_stubs: OpenCV's generator wrote no stubs (see its warnings above)")
        import shutil
        target = os.path.join(output_dir, "cv2")
        shutil.rmtree(target, ignore_errors=True)
        os.makedirs(output_dir, exist_ok=True)
        shutil.copytree(stubs, target)
    write_mat_wrapper_stub(target)
    if skipped:
        print("generate_typing_stubs: refinements left out (their classes are not in this build):",
              ", ".join(sorted(set(skipped))))
    fixed = 0
    for folder, _, files in os.walk(target):
        for name in files:
            if name.endswith((".pyi", ".py")):
                fixed += check_stub(os.path.join(folder, name))
    print("generate_typing_stubs: wrote", target,
          "(%d repairs of the generator's output, see check_stub)" % fixed if fixed else "")


MAT_WRAPPER_STUB = """\
# cv2.Mat for type checkers. cv2/__init__.pyi imports it from cv2.mat_wrapper, a module of OpenCV's Python
# loader package, which cudacca's cv2 (the extension module alone) does not have: written by
# cmake/generate_typing_stubs.py, the type only (a numpy array of numbers, as in OpenCV's package).
import typing as _typing

import numpy as np

class Mat(np.ndarray[_typing.Any, np.dtype[np.integer[_typing.Any] | np.floating[_typing.Any]]]):
    wrap_channels: bool | None
    def __new__(cls, arr: _typing.Any, **kwargs: _typing.Any) -> Mat: ...
"""


def write_mat_wrapper_stub(target):
    folder = os.path.join(target, "mat_wrapper")
    if not os.path.exists(os.path.join(folder, "__init__.pyi")):
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "__init__.pyi"), "w") as f:
            f.write(MAT_WRAPPER_STUB)


def split_parameters(text):
    """The parameters of a signature, split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def check_stub(path):
    """Makes the stub valid Python, then parses it (exit status 1 if it does not). OpenCV's generator gives
    the arguments marked CV_WRAP_DEFAULT a default and writes a later argument without one (the overload of
    cv2.cuda.connectedComponentsWithStats with a stream), which Python does not allow; the binding's own
    parser takes every argument after the first optional one as optional (PyArg format "O|OOOOOOO"), so the
    stub says so: ` = ...`. Returns the number of signatures changed."""
    import ast
    import re
    with open(path) as f:
        lines = f.read().split("\n")
    changed = 0
    for n, line in enumerate(lines):
        m = re.match(r"^(\s*def \w+\()(.*)(\) -> .*)$", line)
        if not m:
            continue
        params = split_parameters(m.group(2))
        seen_default, out = False, []
        for p in params:
            if "=" in p:
                seen_default = True
            elif seen_default and p not in ("*", "/") and not p.startswith("*"):
                p += " = ..."
            out.append(p)
        if out != params:
            lines[n] = m.group(1) + ", ".join(out) + m.group(3)
            changed += 1
    text = "\n".join(lines)
    # A submodule whose functions return sequences of another module's types (videoio_registry in a build
    # without videoio) uses _typing without importing it.
    if "_typing." in text and "import typing as _typing" not in text:
        text = text.replace("\nimport cv2\n", "\nimport cv2\nimport typing as _typing\n", 1)
        changed += 1
    if changed:
        with open(path, "w") as f:
            f.write(text)
    try:
        ast.parse(text, filename=path)
    except SyntaxError as e:
        sys.exit("generate_typing_stubs: %s is not valid Python: %s" % (path, e))
    return changed


if __name__ == "__main__":
    main()
