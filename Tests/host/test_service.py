"""The systemd unit of deploy/: it passes `systemd-analyze verify`, restarts
on failure, logs to the journal, takes the board and calibration from its
config file; the command line it runs works, and SIGTERM (systemctl stop)
ends the stream cleanly (exit 0, summary in the log)."""

import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import hostlib

UNIT = os.path.join(hostlib.ROOT, "deploy", "panelctl-stream.service")
CONF = os.path.join(hostlib.ROOT, "deploy", "panelctl.conf")


def read(path):
    with open(path) as f:
        return f.read()


def unit_settings():
    settings = {}
    for line in read(UNIT).splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            settings[key] = value
    return settings


def conf(path):
    values = {}
    for line in read(path).splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key] = value
    return values


def exec_start(env):
    """ExecStart expanded as systemd does: ${X} is one word, $X splits."""
    words = []
    for word in unit_settings()["ExecStart"].split():
        m = re.fullmatch(r"\$\{(\w+)\}", word)
        if m:
            words.append(env[m.group(1)])
        elif word.startswith("$"):
            words.extend(env[word[1:]].split())
        else:
            words.append(word)
    assert words[0] == "/usr/local/bin/panelctl"
    return [hostlib.PANELCTL] + words[1:]


class ServiceTests(unittest.TestCase):
    def test_the_unit_restarts_on_failure_and_logs_to_the_journal(self):
        s = unit_settings()
        self.assertEqual(s["Restart"], "on-failure")
        self.assertEqual(s["StandardError"], "journal")
        self.assertEqual(s["EnvironmentFile"], "/etc/forcepanel/panelctl.conf")
        # The panel's own record first, the configured file as the fallback.
        self.assertIn("--board ${BOARD} --fallback-calibration ${CALIBRATION}", s["ExecStart"])
        self.assertNotIn(" --calibration ", s["ExecStart"])
        self.assertEqual(s["WantedBy"], "multi-user.target")

    @unittest.skipUnless(shutil.which("systemd-analyze"), "systemd-analyze is not installed")
    def test_systemd_analyze_verifies_the_unit(self):
        with tempfile.TemporaryDirectory() as d:
            unit = os.path.join(d, "panelctl-stream.service")
            text = read(UNIT).replace("/usr/local/bin/panelctl", hostlib.PANELCTL)
            text = text.replace("/etc/forcepanel/panelctl.conf", CONF)
            with open(unit, "w") as f:
                f.write(text)
            r = subprocess.run(["systemd-analyze", "verify", unit], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn("panelctl-stream.service", r.stderr)

    def test_the_example_config_is_a_valid_command_line(self):
        env = conf(CONF)
        env["BOARD"] = "boards/sim-plate4.toml"
        env["CALIBRATION"] = "calibration/sim-plate4.toml"
        r = subprocess.run(exec_start(env) + ["--speed", "0", "--frames", "20"], cwd=hostlib.ROOT,
                           capture_output=True, text=True, timeout=60)
        # Whether this user can open /dev/uinput (a 0600 root node is there
        # but not usable without root), not merely whether it exists.
        if os.access("/dev/uinput", os.R_OK | os.W_OK):
            self.assertEqual(r.returncode, 0, r.stderr)
        else:  # parsed, then the uinput device could not be made here
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("uinput: cannot open /dev/uinput", r.stderr)

    def test_the_configured_file_is_only_the_fallback(self):
        """The service's command line on a twin board, whose panel holds no
        record: the configured file is what it falls back to (a missing one
        is named, with the panel's state); the same command line with the
        panel's record is PanelCalibrationStoreTests'
        theServiceFallbackNeverOverridesThePanel."""
        env = {"BOARD": "boards/sim-plate4-nau7802.toml",
               "CALIBRATION": "calibration/sim-plate4-nau7802.toml", "STREAM_ARGS": "--frames 20"}
        r = subprocess.run(exec_start(env) + ["--speed", "0"], cwd=hostlib.ROOT,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        env["CALIBRATION"] = "/nonexistent/calibration.toml"
        r = subprocess.run(exec_start(env) + ["--speed", "0"], cwd=hostlib.ROOT,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("looked for /nonexistent/calibration.toml", r.stderr)

    def test_systemctl_stop_ends_the_stream_cleanly(self):
        rx = hostlib.UDPReceiver()
        env = {"BOARD": "boards/sim-plate4.toml", "CALIBRATION": "calibration/sim-plate4.toml",
               "STREAM_ARGS": f"--format tuio --to 127.0.0.1:{rx.port} --idle"}
        proc = subprocess.Popen(exec_start(env), cwd=hostlib.ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while len(rx.datagrams) < 100 and time.monotonic() < deadline:
            time.sleep(0.01)  # polling what has arrived, not waiting for a result
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=30)
        datagrams = rx.stop()
        self.assertGreaterEqual(len(datagrams), 100)
        self.assertEqual(proc.returncode, 0, stderr)
        self.assertRegex(stderr, r"panelctl: stream: frames \d+; tuio udp 127\.0\.0\.1:\d+: sent \d+, dropped 0")


if __name__ == "__main__":
    unittest.main()
