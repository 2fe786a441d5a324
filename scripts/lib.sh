# Shared by scripts/*.sh: find Swift, install missing Debian packages.

# Swift: on PATH, or the toolchain at /opt/swift.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi
if ! command -v swift >/dev/null 2>&1; then
  echo "swift not found: install Swift 6.3 (https://swift.org/install) or put it on PATH" >&2
  exit 1
fi

# apt_need PKG...: installs the packages that are not installed yet.
apt_need() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "installing ${missing[*]} (apt-get)" >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# The build needs libi2c (CI2C) and libgpiod (data-ready lines).
build_deps() {
  apt_need libi2c-dev libgpiod-dev
}
