"""forcepanel.d.ts against TypeScript's own compiler (Debian's
node-typescript): a module page and a classic page (the global
`forcepanel`) written against the declarations the server serves type-check
under --strict, and a mistake (send() given a number) is caught."""

import os
import shutil
import subprocess
import tempfile
import unittest

from servelib import Serve

PAGES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pages", "types")
TSC = shutil.which("tsc")


class DeclarationsTests(unittest.TestCase):
    def test_the_served_declarations_type_check_pages(self):
        if not TSC:
            raise AssertionError("tsc is needed (scripts/test.sh installs it: apt-get install node-typescript)")
        server = Serve(["--board", "boards/sim-plate4.toml", "--frames", "20"])
        try:
            status, declarations, headers = server.get("/forcepanel.d.ts")
        finally:
            server.wait()
        self.assertEqual(status, 200)
        folder = tempfile.mkdtemp()
        try:
            with open(os.path.join(folder, "forcepanel.d.ts"), "wb") as f:
                f.write(declarations)
            for name in ("page.ts", "global.ts", "bad.ts"):
                shutil.copy(os.path.join(PAGES, name), folder)

            def tsc(name, *extra):
                return subprocess.run([TSC, "--noEmit", "--strict", "--lib", "es2020,dom", *extra, name], cwd=folder,
                                      capture_output=True, text=True, timeout=300)

            module = tsc("page.ts", "--module", "es2020", "--moduleResolution", "node")
            self.assertEqual(module.returncode, 0, module.stdout + module.stderr)
            classic = tsc("global.ts")
            self.assertEqual(classic.returncode, 0, classic.stdout + classic.stderr)
            bad = tsc("bad.ts", "--module", "es2020", "--moduleResolution", "node")
            self.assertNotEqual(bad.returncode, 0)
            self.assertIn("not assignable to parameter of type 'string'", bad.stdout)
        finally:
            shutil.rmtree(folder)


if __name__ == "__main__":
    unittest.main()
