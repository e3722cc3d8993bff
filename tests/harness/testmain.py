"""Runs the unittest cases of one integration test script and prints "N passed, M failed".

Usage at the bottom of a test script:
    if __name__ == "__main__":
        testmain.main([SomeTest, OtherTest])
Flags: --granite PATH (else $GRANITE_BIN or the newest build*/granite), -k SUBSTRING to run only
the tests whose name contains it. A class whose setUpClass fails counts all its tests as failed.
SIGTERM (ctest's timeout) stops every cluster the script started before exiting.
"""

import argparse
import os
import signal
import sys
import unittest

import cluster


class _CountingResult(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.passed = 0

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1


def granite():
    """Returns the granite argv prefix chosen by the command line or the environment."""
    return cluster.find_granite()


def main(test_classes):
    parser = argparse.ArgumentParser()
    parser.add_argument("--granite")
    parser.add_argument("-k", dest="filter", action="append",
                        help="run only tests whose name contains this (repeatable)")
    args = parser.parse_args()
    if args.granite:
        os.environ["GRANITE_BIN"] = args.granite

    def on_term(*_):
        cluster.stop_all()
        os._exit(143)

    signal.signal(signal.SIGTERM, on_term)
    loader = unittest.TestLoader()
    if args.filter:
        loader.testNamePatterns = ["*%s*" % f for f in args.filter]
    suite = unittest.TestSuite(loader.loadTestsFromTestCase(c) for c in test_classes)
    total = suite.countTestCases()
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2, resultclass=_CountingResult)
    result = runner.run(suite)
    skipped = len(result.skipped)
    failed = total - result.passed - skipped
    sys.stdout.flush()
    line = "%d passed, %d failed" % (result.passed, failed)
    if skipped:
        line += ", %d skipped" % skipped
    print(line, flush=True)
    sys.exit(1 if failed or result.passed == 0 else 0)
