#!/usr/bin/env bash
# One way to the kernel (docs/architecture.md): files, directories,
# sockets, poll and pipes are called only through the syscall shims in
# Sources/PanelFiles/Kernel (Syscalls*.swift, used by `FileDescriptor`,
# `FileSystem` and `Poll`) and the bus and GPIO ones beside the drivers
# (Sources/PanelHardware/Linux/Syscalls+Devices.swift), so that a debug
# build's MockKernel can answer every one of them in tests and the EINTR /
# short-write / EAGAIN policy is written once. A self-test first shows that
# a direct call is caught.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import os, re, sys

SHIMS = re.compile(r"^Sources/(PanelFiles/Kernel|PanelHardware/Linux)/Syscalls[^/]*\.swift$")
CALLS = ("socket|socketpair|connect|bind|listen|accept|accept4|recv|recvfrom|recvmsg|send|sendto|sendmsg|"
         "shutdown|setsockopt|getsockopt|getsockname|getpeername|poll|ppoll|epoll_create1|epoll_ctl|epoll_wait|"
         "pipe|pipe2|"
         # files and directories
         "open|openat|creat|close|read|pread|readv|write|pwrite|writev|fsync|fdatasync|ftruncate|truncate|lseek|"
         "dup|dup2|dup3|fcntl|flock|stat|lstat|fstat|fstatat|access|rename|renameat|renameat2|unlink|unlinkat|"
         "mkdir|mkdirat|rmdir|symlink|readlink|link|linkat|opendir|fdopendir|readdir|closedir|"
         "fopen|fdopen|fclose|fread|fwrite|fflush|fputs|fgets|ioctl")
# A call of the C function: not a method (`x.send(`), not a declaration
# (`func send(`), with arguments (a type's own `poll()` is not the syscall).
CALL = re.compile(r"(?<![\w.])(?:Glibc\.|Darwin\.)?(" + CALLS + r")\(\s*[^)\s]")
DECLARATION = re.compile(r"\b(func|case)\s+$")
LABEL = re.compile(r"^\((?:[^()]*?,)?\s*[A-Za-z_]\w*:(?!:)")

OWN = re.compile(r"\bfunc\s+(" + CALLS + r")\s*[(<]|[(,]\s*(?:_\s+)?(" + CALLS + r")\s*:\s*(?:@escaping\s+)?\(")

def problems(path, text):
    found = []
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    # A file that declares its own `read(...)` or `open(...)` (or takes a
    # closure parameter of that name) calls it without `self.`: the name
    # there is not the C function.
    own = {name for pair in OWN.findall(text) for name in pair if name}
    for number, line in enumerate(text.split("\n"), 1):
        line = re.sub(r"//.*", "", line)
        line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
        for m in CALL.finditer(line):
            if DECLARATION.search(line[: m.start()]) or m.group(1) in own:
                continue
            if LABEL.search(line[m.end() - 2 :]):
                continue  # a Swift method with argument labels, not the C call
            found.append(f"{path}:{number}: {m.group(1)}() outside the syscall shims: use FileDescriptor, FileSystem or Poll (PanelFiles/Kernel)")
    return found

bad = problems("Sources/X/Bad.swift", "let fd = socket(AF_INET, 1, 0)\n_ = Glibc.poll(&p, 1, 0)\nfunc send(_ m: Int) {}\nout.send(x)\npoll()\n"
               "try poll(timeout_ns: 5)\nif rename(a, b) != 0 {}\n_ = fsync(fd)\nfile.sync()\ntry FileSystem.rename(a, to: b)\n")
if len(bad) != 4:
    sys.exit("check-kernel-calls: the self-test expected 4 problems, found: " + repr(bad))

found = []
count = 0
for directory, _, files in os.walk("Sources"):
    for f in sorted(files):
        path = os.path.join(directory, f)
        if not f.endswith(".swift") or SHIMS.match(path):
            continue
        count += 1
        found += problems(path, open(path, encoding="utf-8").read())
for p in found:
    print(p, file=sys.stderr)
if found:
    sys.exit(f"check-kernel-calls: {len(found)} file, socket, poll or pipe call(s) outside the shims")
print(f"check-kernel-calls: {count} files call files, sockets, poll and pipes only through the shims", file=sys.stderr)
PY
