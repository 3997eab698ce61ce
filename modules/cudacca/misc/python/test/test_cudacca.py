#!/usr/bin/env python3
# This file is part of cudacca, an OpenCV extra module.
# It is subject to the license terms in the LICENSE file found in the top-level directory.
"""Python binding test of cv2.cuda.connectedComponentsWithStats (module cudacca).

Run:  PYTHONPATH=<build>/lib/python3[:<numpy>] python3 -m unittest discover -s modules/cudacca/misc/python/test -v

Without a CUDA device the GPU tests skip with a reason; the binding and argument checks still run.
Random images use a printed seed; set CUDACCA_TEST_SEED=<int> to replay one.
"""

import os
import re
import subprocess
import sys
import unittest

import numpy as np
import cv2

BASE_SEED = int(os.environ.get("CUDACCA_TEST_SEED", "20240917"))


def cuda_device_count():
    try:
        return cv2.cuda.getCudaEnabledDeviceCount()
    except AttributeError:  # cv2 built without the cuda namespace
        return -1


def random_image(rng, shape, density, granularity=1, dtype=np.uint8):
    """YACCLAB-style: a block grid, each block foreground (255 / 1 for int8) with probability density."""
    h, w = shape
    gh, gw = -(-h // granularity), -(-w // granularity)
    blocks = rng.random((gh, gw)) < density
    img = np.kron(blocks, np.ones((granularity, granularity), dtype=bool))[:h, :w]
    fg = 1 if dtype == np.int8 else 255
    return np.where(img, fg, 0).astype(dtype)


def cpu_reference(img, connectivity, ltype):
    # The CPU overload taking ccltype is exposed to Python as connectedComponentsWithStatsWithAlgorithm.
    return cv2.connectedComponentsWithStatsWithAlgorithm(img, connectivity=connectivity, ltype=ltype,
                                                         ccltype=cv2.CCL_SAUF)


def read_algorithm_list():
    """The module's one list of algorithms (src/algorithm_list.hpp, rows X(id, labeling4, labeling8, analysis,
    paths)): {name: (labeling for 4, for 8)}."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "src", "algorithm_list.hpp")
    with open(path) as f:
        rows = re.findall(r"X\((CCA_\w+),\s*(\w+),\s*(\w+),\s*(\w+),\s*(\w+)\)", f.read())
    return {name: (l4, l8) for name, l4, l8, _analysis, _paths in rows}


# Every algorithm the binding exposes (cv2.cuda.CCA_*, not the CCA_ORDER_CCL_DEFAULT flag); the list says which
# connectivities each supports.
ALGORITHMS = {name: getattr(cv2.cuda, name) for name in dir(cv2.cuda)
              if name.startswith("CCA_") and not name.startswith("CCA_ORDER_")} if hasattr(cv2, "cuda") else {}
ALGORITHM_LIST = read_algorithm_list()


def algorithms_for(connectivity):
    def supported(name):
        if name == "CCA_DEFAULT":
            return True
        labeling4, labeling8 = ALGORITHM_LIST[name]
        return (labeling4 if connectivity == 4 else labeling8) != "none"
    return [v for n, v in sorted(ALGORITHMS.items(), key=lambda kv: kv[1]) if supported(n)]


class CudaccaBindingTest(unittest.TestCase):
    """Runs everywhere, with or without a GPU."""

    def test_binding_exists(self):
        self.assertTrue(hasattr(cv2, "cuda"), "cv2 has no cuda namespace")
        self.assertTrue(callable(getattr(cv2.cuda, "connectedComponentsWithStats", None)),
                        "cv2.cuda.connectedComponentsWithStats is missing")
        self.assertEqual(cv2.cuda.CCA_DEFAULT, 0)
        self.assertEqual(cv2.cuda.CCA_ORDER_CCL_DEFAULT, 0x100)  # a flag, OR-ed into an algorithm
        # Every row of the module's algorithm list is exposed, each with its own value.
        self.assertEqual(set(ALGORITHMS), set(ALGORITHM_LIST) | {"CCA_DEFAULT"})
        self.assertEqual(len(set(ALGORITHMS.values())), len(ALGORITHMS))
        self.assertTrue(hasattr(cv2, "cuda_GpuMat"))
        self.assertTrue(hasattr(cv2.cuda, "Stream") or hasattr(cv2, "cuda_Stream"))
        doc = cv2.cuda.connectedComponentsWithStats.__doc__ or ""
        for name in ("connectivity", "ltype", "algorithm", "stream"):
            self.assertIn(name, doc, "argument %s not in the binding's signature:\n%s" % (name, doc))

    def test_pool_controls(self):
        # The memory pool's limit is a setting (no GPU needed); the queries need no pool, the release
        # nothing to release.
        before = cv2.cuda.getConnectedComponentsPoolLimit()
        try:
            cv2.cuda.setConnectedComponentsPoolLimit(256 << 20)
            self.assertEqual(cv2.cuda.getConnectedComponentsPoolLimit(), 256 << 20)
        finally:
            cv2.cuda.setConnectedComponentsPoolLimit(before)
        self.assertEqual(cv2.cuda.getConnectedComponentsPoolLimit(), before)
        cv2.cuda.releaseConnectedComponentsPool()
        self.assertGreaterEqual(cv2.cuda.getConnectedComponentsPoolBytes(), 0)
        self.assertGreaterEqual(cv2.cuda.getConnectedComponentsPeakBytes(reset=False), 0)

    def test_analyzer_settings(self):
        # Created and checked without a GPU; a wrong setting raises cv2.error naming it.
        a = cv2.cuda.createConnectedComponentsAnalyzer(cv2.cuda.CCA_FLSL_CD, 4, cv2.CV_16U)
        self.assertEqual((a.getAlgorithm(), a.getConnectivity(), a.getLType()),
                         (cv2.cuda.CCA_FLSL_CD, 4, cv2.CV_16U))
        self.assertEqual(a.getMemoryBytes(), 0)
        with self.assertRaisesRegex(cv2.error, "connectivity 4"):
            cv2.cuda.createConnectedComponentsAnalyzer(cv2.cuda.CCA_BKE, 4)
        with self.assertRaisesRegex(cv2.error, "ltype"):
            cv2.cuda.createConnectedComponentsAnalyzer(cv2.cuda.CCA_DEFAULT, 8, cv2.CV_8U)
        # applyAsync (graph capture: GpuMat outputs written in place, N on the device) is bound too.
        self.assertTrue(callable(getattr(a, "applyAsync", None)))
        self.assertTrue(callable(getattr(a, "applyBatch", None)))

    def run_child(self, script):
        # A child interpreter: if a call aborted the interpreter (as the generated binding's default
        # stream=cv::cuda::Stream::Null() did without a CUDA driver, before the module's overload without a
        # stream), the abort is reported here instead of killing the whole test run.
        res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
        if res.returncode != 0:
            self.fail("the calls crashed the interpreter (exit code %d) instead of raising cv2.error.%s"
                      "\n--- child stderr (tail) ---\n%s"
                      % (res.returncode,
                         "\nCause: a default stream=Stream::Null() throws outside the binding's error guard when"
                         " there is no CUDA driver (cv::cuda::getDevice)." if "getDevice" in res.stderr else "",
                         res.stderr[-2000:]))
        return res

    def test_without_gpu_a_valid_call_raises(self):
        n = cuda_device_count()
        if n > 0:
            self.skipTest("a CUDA device is present (%d): this test is for machines without one" % n)
        res = self.run_child(NO_GPU_SCRIPT)
        results = dict(line.split(": ", 1) for line in res.stdout.splitlines() if ": " in line)
        self.assertTrue(results, "no result from the child:\n%s\n%s" % (res.stdout, res.stderr))
        for what, outcome in sorted(results.items()):
            with self.subTest(what):
                self.assertTrue(outcome.startswith("cv2.error"), "%s: expected cv2.error, got %s" % (what, outcome))
                print("  without a GPU, %s: %s" % (what, outcome), file=sys.stderr)

    def test_bad_arguments_raise(self):
        # With or without a GPU: every bad argument raises cv2.error, checked before any device work.
        res = self.run_child(BAD_ARGUMENT_SCRIPT)
        results = dict(line.split(": ", 1) for line in res.stdout.splitlines() if ": " in line)
        self.assertTrue(results, "no result from the child:\n%s\n%s" % (res.stdout, res.stderr))
        for what, outcome in sorted(results.items()):
            with self.subTest(what):
                self.assertEqual(outcome, "cv2.error", "%s: expected cv2.error, got %s" % (what, outcome))


# Runs in a child interpreter (see test_without_gpu_a_valid_call_raises); "<case>: <outcome>" per case.
NO_GPU_SCRIPT = r"""
import numpy as np, cv2
img = np.zeros((16, 16), np.uint8)
img[4:8, 4:8] = 255
for what, kwargs in (("numpy image, defaults", {}),
                     ("numpy image, every argument but the stream",
                      dict(connectivity=4, ltype=cv2.CV_16U, algorithm=cv2.cuda.CCA_UF))):
    try:
        cv2.cuda.connectedComponentsWithStats(img, **kwargs)
        outcome = "no exception"
    except cv2.error as e:
        outcome = "cv2.error: " + str(e).strip().splitlines()[-1][:160]
    except Exception as e:
        outcome = "%s: %s" % (type(e).__name__, e)
    print("%s: %s" % (what, outcome.replace("\n", " ")), flush=True)
"""

# Runs in a child interpreter (see test_bad_arguments_raise); prints "<case>: <outcome>" per case.
BAD_ARGUMENT_SCRIPT = r"""
import numpy as np, cv2
img = np.zeros((16, 16), np.uint8)
img[4:8, 4:8] = 255
cases = [
    ("float32 image", img.astype(np.float32), {}),
    ("int32 image", img.astype(np.int32), {}),
    ("3-channel image", np.dstack([img, img, img]), {}),
    ("empty image", np.zeros((0, 0), np.uint8), {}),
    ("connectivity 6", img, dict(connectivity=6)),
    ("connectivity 0", img, dict(connectivity=0)),
    ("ltype CV_8U", img, dict(ltype=cv2.CV_8U)),
    ("ltype CV_32F", img, dict(ltype=cv2.CV_32F)),
    ("unknown algorithm", img, dict(algorithm=12345)),
    ("negative algorithm", img, dict(algorithm=-1)),
]
for what, image, kwargs in cases:
    try:
        cv2.cuda.connectedComponentsWithStats(image, **kwargs)
        outcome = "no exception"
    except cv2.error:
        outcome = "cv2.error"
    except Exception as e:
        outcome = "%s: %s" % (type(e).__name__, e)
    print("%s: %s" % (what, outcome.replace("\n", " ")), flush=True)
"""


class CudaccaGpuTest(unittest.TestCase):
    """Exact comparison with the CPU's CCL_SAUF; needs a CUDA device."""

    def setUp(self):
        n = cuda_device_count()
        if n <= 0:
            self.skipTest("no CUDA device: cv2.cuda.getCudaEnabledDeviceCount() = %d%s"
                          % (n, " (no driver, or cv2 built without CUDA)" if n < 0 else ""))

    # -- helpers --------------------------------------------------------------------------------------------

    def assert_same(self, ctx, ref, got):
        """ref, got: (retval, labels, stats, centroids) as numpy."""
        rn, rl, rs, rc = ref
        n, labels, stats, centroids = got
        self.assertEqual(n, rn, "%s: number of labels" % ctx)
        self.assertEqual(labels.dtype, rl.dtype, "%s: label dtype" % ctx)
        self.assertEqual(labels.shape, rl.shape, "%s: label shape" % ctx)
        if not np.array_equal(labels, rl):
            bad = np.argwhere(labels != rl)
            y, x = bad[0]
            self.fail("%s: %d labels differ, first at (y=%d, x=%d): GPU %d, CPU %d"
                      % (ctx, len(bad), y, x, labels[y, x], rl[y, x]))
        if stats is not None:
            self.assertEqual(stats.dtype, np.int32, ctx)
            self.assertEqual(stats.shape, rs.shape, "%s: stats shape" % ctx)
            if not np.array_equal(stats, rs):
                r = np.argwhere((stats != rs).any(axis=1))[0][0]
                self.fail("%s: stats differ, first at label %d: GPU %s, CPU %s" % (ctx, r, stats[r], rs[r]))
        if centroids is not None:
            self.assertEqual(centroids.dtype, np.float64, ctx)
            self.assertEqual(centroids.shape, rc.shape, "%s: centroids shape" % ctx)
            gb = np.ascontiguousarray(centroids).view(np.uint64)
            cb = np.ascontiguousarray(rc).view(np.uint64)
            if not np.array_equal(gb, cb):
                r = np.argwhere((gb != cb).any(axis=1))[0][0]
                self.fail("%s: centroids differ bitwise, first at label %d: GPU %r, CPU %r"
                          % (ctx, r, centroids[r].tolist(), rc[r].tolist()))

    def run_gpumat(self, img, connectivity, ltype, algorithm, stream=None):
        d_img = cv2.cuda_GpuMat()
        d_img.upload(img)
        kwargs = dict(connectivity=connectivity, ltype=ltype, algorithm=algorithm)
        if stream is not None:
            kwargs["stream"] = stream
        n, d_labels, d_stats, d_centroids = cv2.cuda.connectedComponentsWithStats(d_img, **kwargs)
        for name, out in (("labels", d_labels), ("stats", d_stats), ("centroids", d_centroids)):
            self.assertIsInstance(out, cv2.cuda_GpuMat,
                                  "%s should come back as cv2.cuda_GpuMat for a GpuMat input, got %s"
                                  % (name, type(out)))
        if stream is not None:
            stream.waitForCompletion()
        return n, d_labels.download(), d_stats.download(), d_centroids.download()

    def images(self):
        """(name, image) pairs: random images at several densities and granularities, plus edge cases."""
        out = []
        for i, (shape, density, g) in enumerate([
                ((97, 131), 0.05, 1), ((240, 320), 0.25, 1), ((256, 256), 0.5, 1), ((301, 257), 0.6, 1),
                ((256, 512), 0.75, 1), ((200, 200), 0.95, 1), ((512, 512), 0.5, 4), ((480, 640), 0.6, 16),
                ((1, 1000), 0.5, 1), ((1000, 1), 0.5, 1)]):
            seed = BASE_SEED + i
            rng = np.random.default_rng(seed)
            out.append(("random %dx%d d=%g g=%d seed=%d" % (shape[1], shape[0], density, g, seed),
                        random_image(rng, shape, density, g)))
        out.append(("all background 64x48", np.zeros((48, 64), np.uint8)))
        out.append(("all foreground 64x48", np.full((48, 64), 255, np.uint8)))
        out.append(("single pixel 1x1", np.full((1, 1), 7, np.uint8)))
        return out

    # -- tests ----------------------------------------------------------------------------------------------

    def test_gpumat_matches_cpu(self):
        print("\n[cudacca] base seed %d (CUDACCA_TEST_SEED to change)" % BASE_SEED, file=sys.stderr)
        for name, img in self.images():
            for connectivity in (8, 4):
                for ltype in (cv2.CV_32S, cv2.CV_16U):
                    ref = cpu_reference(img, connectivity, ltype)
                    for algorithm in algorithms_for(connectivity):
                        ctx = "%s conn=%d ltype=%s algo=%d" % (
                            name, connectivity, "CV_32S" if ltype == cv2.CV_32S else "CV_16U", algorithm)
                        with self.subTest(ctx):
                            self.assert_same(ctx, ref, self.run_gpumat(img, connectivity, ltype, algorithm))

    def test_order_ccl_default_matches_cpu_defaults(self):
        # CCA_ORDER_CCL_DEFAULT: equal to cv2.connectedComponentsWithStats with OpenCV's defaults (CCL_DEFAULT).
        for name, img in self.images():
            for connectivity in (8, 4):
                ref = cv2.connectedComponentsWithStats(img, connectivity=connectivity, ltype=cv2.CV_32S)
                for algorithm in algorithms_for(connectivity):
                    ctx = "%s conn=%d algo=%d | CCA_ORDER_CCL_DEFAULT" % (name, connectivity, algorithm)
                    with self.subTest(ctx):
                        got = cv2.cuda.connectedComponentsWithStats(
                            img, connectivity=connectivity, ltype=cv2.CV_32S,
                            algorithm=algorithm | cv2.cuda.CCA_ORDER_CCL_DEFAULT)
                        self.assert_same(ctx, ref, got)

    def test_gpumat_with_stream(self):
        stream = cv2.cuda.Stream()
        for i, density in enumerate((0.1, 0.5, 0.9)):
            seed = BASE_SEED + 100 + i
            img = random_image(np.random.default_rng(seed), (384, 512), density)
            for connectivity in (8, 4):
                ctx = "stream d=%g seed=%d conn=%d" % (density, seed, connectivity)
                with self.subTest(ctx):
                    ref = cpu_reference(img, connectivity, cv2.CV_32S)
                    got = self.run_gpumat(img, connectivity, cv2.CV_32S, cv2.cuda.CCA_DEFAULT, stream=stream)
                    self.assert_same(ctx, ref, got)

    def test_analyzer_matches_cpu(self):
        # One analyzer for a stream of images (sizes and label counts change), numpy and GpuMat inputs.
        a = cv2.cuda.createConnectedComponentsAnalyzer(cv2.cuda.CCA_DEFAULT, 8, cv2.CV_32S)
        stream = cv2.cuda.Stream()
        for name, img in self.images():
            with self.subTest(name):
                ref = cpu_reference(img, 8, cv2.CV_32S)
                n, labels, stats, centroids = a.apply(img)
                self.assert_same(name + " (numpy)", ref, (n, labels, stats, centroids))
                d_img = cv2.cuda_GpuMat()
                d_img.upload(img)
                n, d_labels, d_stats, d_centroids = a.apply(d_img, stream=stream)
                stream.waitForCompletion()
                self.assert_same(name + " (GpuMat)", ref,
                                 (n, d_labels.download(), d_stats.download(), d_centroids.download()))
        self.assertGreater(a.getMemoryBytes(), 0)
        a.releaseMemory()

    def test_analyzer_async_matches_cpu(self):
        # applyAsync: preallocated GpuMat outputs written in place, N and a status in a device 1x2 int array.
        a = cv2.cuda.createConnectedComponentsAnalyzer(cv2.cuda.CCA_DEFAULT, 8, cv2.CV_32S)
        stream = cv2.cuda.Stream()
        for name, img in self.images():
            with self.subTest(name):
                n, labels, stats, centroids = cpu_reference(img, 8, cv2.CV_32S)
                capacity = n + 2
                d_img = cv2.cuda_GpuMat()
                d_img.upload(img)
                d_labels = cv2.cuda_GpuMat(img.shape[0], img.shape[1], cv2.CV_32SC1)
                d_stats = cv2.cuda_GpuMat(capacity, 5, cv2.CV_32SC1)
                d_centroids = cv2.cuda_GpuMat(capacity, 2, cv2.CV_64FC1)
                d_count = cv2.cuda_GpuMat(1, 2, cv2.CV_32SC1)
                a.applyAsync(d_img, d_labels, d_stats, d_centroids, d_count, stream)
                stream.waitForCompletion()
                self.assertEqual(d_count.download().ravel().tolist(), [n, 0], name)
                self.assert_same(name + " (applyAsync)", (n, labels, stats, centroids),
                                 (n, d_labels.download(), d_stats.download()[:n], d_centroids.download()[:n]))

    def test_analyzer_batch_matches_cpu(self):
        # applyBatch: a list of GpuMat images of different sizes in, per-image GpuMat outputs and counts out,
        # one wait for the batch; twice (the first batch stages too few rows for some frames).
        a = cv2.cuda.createConnectedComponentsAnalyzer(cv2.cuda.CCA_DEFAULT, 8, cv2.CV_32S)
        stream = cv2.cuda.Stream()
        named = list(self.images())
        refs = [cpu_reference(img, 8, cv2.CV_32S) for _, img in named]
        d_images = []
        for _, img in named:
            d = cv2.cuda_GpuMat()
            d.upload(img)
            d_images.append(d)
        for call in range(2):
            labels, stats, centroids, counts = a.applyBatch(d_images, stream)
            stream.waitForCompletion()
            self.assertEqual(list(counts), [r[0] for r in refs])
            for k, (name, _) in enumerate(named):
                self.assert_same("%s (applyBatch, call %d)" % (name, call), refs[k],
                                 (counts[k], labels[k].download(), stats[k].download(), centroids[k].download()))

    def test_gpumat_roi(self):
        seed = BASE_SEED + 200
        img = random_image(np.random.default_rng(seed), (300, 400), 0.5)
        d_full = cv2.cuda_GpuMat()
        d_full.upload(img)
        x, y, w, h = 37, 21, 301, 233
        d_roi = cv2.cuda_GpuMat(d_full, (x, y, w, h))
        roi = np.ascontiguousarray(img[y:y + h, x:x + w])
        for connectivity in (8, 4):
            ctx = "ROI seed=%d conn=%d" % (seed, connectivity)
            with self.subTest(ctx):
                n, dl, ds, dc = cv2.cuda.connectedComponentsWithStats(d_roi, connectivity=connectivity,
                                                                      ltype=cv2.CV_32S)
                self.assert_same(ctx, cpu_reference(roi, connectivity, cv2.CV_32S),
                                 (n, dl.download(), ds.download(), dc.download()))

    def test_numpy_input(self):
        for i, density in enumerate((0.05, 0.5, 0.95)):
            seed = BASE_SEED + 300 + i
            img = random_image(np.random.default_rng(seed), (257, 311), density)
            for connectivity in (8, 4):
                for ltype in (cv2.CV_32S, cv2.CV_16U):
                    ctx = "numpy d=%g seed=%d conn=%d ltype=%d" % (density, seed, connectivity, ltype)
                    with self.subTest(ctx):
                        got = cv2.cuda.connectedComponentsWithStats(img, connectivity=connectivity, ltype=ltype,
                                                                    algorithm=cv2.cuda.CCA_DEFAULT)
                        for out in got[1:]:
                            self.assertIsInstance(out, np.ndarray, "numpy input should give numpy outputs")
                        self.assert_same(ctx, cpu_reference(img, connectivity, ltype), got)

    def test_int8_input(self):
        seed = BASE_SEED + 400
        img = random_image(np.random.default_rng(seed), (128, 160), 0.5, dtype=np.int8)
        img[0, 0] = -5  # negative values are foreground too
        for connectivity in (8, 4):
            ctx = "int8 seed=%d conn=%d" % (seed, connectivity)
            with self.subTest(ctx):
                self.assert_same(ctx, cpu_reference(img, connectivity, cv2.CV_32S),
                                 self.run_gpumat(img, connectivity, cv2.CV_32S, cv2.cuda.CCA_DEFAULT))

    def test_16u_overflow_raises(self):
        # isolated pixels on a 2-pixel lattice: 300 x 300 = 90000 components (> 65535) for 4 and 8 connectivity
        img = np.zeros((600, 600), np.uint8)
        img[::2, ::2] = 255
        for connectivity in (8, 4):
            with self.subTest("conn=%d" % connectivity):
                with self.assertRaises(cv2.error):
                    cv2.cuda.connectedComponentsWithStats(img, connectivity=connectivity, ltype=cv2.CV_16U)
                ref = cpu_reference(img, connectivity, cv2.CV_32S)
                self.assertEqual(ref[0], 90001)
                self.assert_same("90000 components CV_32S conn=%d" % connectivity, ref,
                                 self.run_gpumat(img, connectivity, cv2.CV_32S, cv2.cuda.CCA_DEFAULT))


if __name__ == "__main__":
    unittest.main()
