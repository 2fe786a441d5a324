# Shared by scripts/*.sh: find Swift, install missing Debian packages.

# Swift: on PATH, or the toolchain at /opt/swift.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi
if ! command -v swift >/dev/null 2>&1; then
  echo "swift not found: install Swift 6.3 (https://swift.org/install) or put it on PATH" >&2
  exit 1
fi

# apt_need PKG...: installs the packages that are not installed yet. As
# root, or through `sudo -n` (never a password prompt: without
# passwordless sudo it fails at once, naming the packages). apt-get waits
# up to 10 minutes for the dpkg lock, which unattended-upgrades holds for a
# while after a fresh machine's first boot.
apt_need() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1 || ! sudo -n true 2>/dev/null; then
      echo "missing Debian packages: ${missing[*]}; install them as root" \
        "(apt-get install ${missing[*]}) or allow passwordless sudo" >&2
      return 1
    fi
    sudo=(sudo -n)
  fi
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)
  echo "installing ${missing[*]} (apt-get)" >&2
  "${sudo[@]}" "${apt[@]}" update -qq >&2 &&
    "${sudo[@]}" "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# The build needs libi2c (CI2C) and libgpiod (data-ready lines).
build_deps() {
  apt_need libi2c-dev libgpiod-dev
}

# The factory database's tests run a throw-away PostgreSQL cluster
# (scripts/postgres.sh): Debian's postgresql (15).
postgres_deps() {
  apt_need postgresql
}

# host_venv: the Python venv of the host-side checks (.build-venv, ignored
# by git), with the independent decoders they use, installed when missing.
HOST_VENV=".build-venv"
host_venv() {
  if ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then apt_need python3-venv; fi
  [ -x "$HOST_VENV/bin/python" ] || python3 -m venv "$HOST_VENV" >&2
  if ! "$HOST_VENV/bin/python" -c "import pythonosc, pythontuio, websockets, selenium, prometheus_client" >/dev/null 2>&1; then
    echo "installing python-osc, python-tuio, websockets, selenium, prometheus_client into $HOST_VENV (pip)" >&2
    "$HOST_VENV/bin/pip" install -q --disable-pip-version-check \
      python-osc==1.10.2 python-tuio==0.0.9 websockets==17.4 selenium==4.41.0 prometheus_client==0.26.0 >&2
  fi
}

# The browser of the web checks (Tests/host/test_serve_browser.py): Debian's
# Chromium and its WebDriver, driven by Selenium from the venv; and
# TypeScript's compiler for forcepanel.d.ts (test_serve_types.py).
browser_deps() {
  apt_need chromium chromium-driver node-typescript
}

# The toolchain's own LLVM tools (ld.lld, clang, llvm-objdump) beside swiftc.
SWIFT_TOOLS=$(dirname "$(command -v swiftc)")

# elf_sections FILE: "name bytes" for every section of an object or ELF file.
elf_sections() {
  local idx name size rest
  "$SWIFT_TOOLS/llvm-objdump" -h "$1" | while read -r idx name size rest; do
    if [[ $idx =~ ^[0-9]+$ && $name == .* ]]; then echo "$name $((16#$size))"; fi
  done
}

# stage TEXT: starts a named stage of a long script, on stderr, with the
# time the previous stage took and the time since the script began (the
# figures docs/ci.md's timing comes from).
stage() {
  local now=$SECONDS
  if [ -n "${STAGE_STARTED:-}" ]; then
    printf '   (%d s)\n' $((now - STAGE_STARTED)) >&2
  fi
  STAGE_STARTED=$now
  printf '== [%d:%02d] %s\n' $((now / 60)) $((now % 60)) "$*" >&2
}
