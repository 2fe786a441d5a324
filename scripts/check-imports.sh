#!/usr/bin/env bash
# The module graph is the architecture (docs/architecture.md): every file in
# Sources/ may import a module of this package only when its target lists
# that module as a dependency in Package.swift (or a listed dependency
# re-exports it with `@_exported import`), so no module imports one above
# it. ForceCore, CoreRunner and PanelTouch, which also build as Embedded
# Swift for microcontrollers, import no system module (no Glibc, no
# Foundation). NIO, the web server and the database libraries are imported
# only by the modules that own the network and the database (PanelWeb,
# PanelFactoryStore) and the tool: the frame path and everything below
# stay free of them. The graph is read from Package.swift (swift package
# dump-package); a self-test first shows that a bad import is caught.
# Files are read once, into typed values: only PanelFiles and the parsers
# named in PARSERS (docs/architecture.md, "Only parsers see TOML") name
# TOMLTable, and only the board's parser compares a front end's kind or
# the "sim" that names a simulated panel, twin bus or haptic bus.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
swift package dump-package >"${TMPDIR:-/tmp}/forcepanel-package.json"
python3 - "${TMPDIR:-/tmp}/forcepanel-package.json" <<'PY'
import json, os, re, sys

PURE = {"ForceCore", "CoreRunner", "PanelTouch"}  # Embedded Swift: only each other
# NIO, the server and the database: only where the network and the database are.
SERVER = re.compile(r"^(NIO|_NIO|SQL|SQLite|Postgres|Hummingbird|AsyncKit|ServiceLifecycle|WebSocket)")
SERVER_TARGETS = {"PanelWeb", "PanelFactoryStore", "panelctl"}
PARSERS = {  # files that turn a TOML file into typed values
    "Sources/PanelFormats/Board/BoardLoader.swift", "Sources/PanelFormats/Board/BoardFrontEnd+TOML.swift",
    "Sources/PanelFormats/Board/DriverConfiguration+TOML.swift", "Sources/PanelFormats/Board/HapticsSettings+TOML.swift",
    "Sources/PanelFormats/Simulation/SimulationParameters.swift",
    "Sources/PanelFormats/Simulation/SimulationParameters+Envelope.swift",
    "Sources/PanelFormats/Simulation/SimulatedBoardParameters.swift",
    "Sources/PanelFormats/Simulation/SimulatedCellOverride.swift", "Sources/PanelFormats/Simulation/SimulatedWander.swift",
    "Sources/PanelFormats/Calibration/ResponseRecord.swift", "Sources/PanelFormats/Regions/RegionLoader.swift",
    "Sources/PanelSimulation/ScenarioLoader.swift", "Sources/PanelCalibration/CalibrationPlanLoader.swift",
    "Sources/PanelServe/ClientItems.swift",
}
BOARD_PARSERS = {p for p in PARSERS if p.startswith("Sources/PanelFormats/Board/")}
KIND_COMPARED = re.compile(r'frontEnd\.kind\s*[!=]=|[!=]=\s*"sim"|"sim"\s*[!=]=|case\s+"sim"')
IMPORT = re.compile(r"^\s*(@_exported\s+|@testable\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_]\w*)", re.M)

package = json.load(open(sys.argv[1]))
targets = {t["name"]: t for t in package["targets"] if t["type"] in ("regular", "executable")}

def dependencies(target):
    names = set()
    for d in target["dependencies"]:
        kind, value = next(iter(d.items()))
        names.add(value[0])
    return names

def sources(name):
    root = targets[name].get("path") or os.path.join("Sources", name)
    for directory, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith(".swift"):
                yield os.path.join(directory, f)

def imports(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return [((m.group(1) or "").strip(), m.group(2), text[: m.start()].count("\n") + 1) for m in IMPORT.finditer(text)]

def code(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)

def check_parsing(files):
    """TOMLTable only in PanelFiles and the parsers; kinds compared only by the board's parser."""
    problems = []
    for target, path, text in files:
        body = code(text)
        if target != "PanelFiles" and path not in PARSERS and "TOMLTable" in body:
            problems.append(f"{path}: names TOMLTable but is not a parser (PARSERS in scripts/check-imports.sh): "
                            "take the typed value the parser makes")
        if path not in BOARD_PARSERS and KIND_COMPARED.search(body):
            problems.append(f"{path}: compares a front end's kind or \"sim\": switch over the typed BoardFrontEnd "
                            "or HapticsBus instead")
    return problems

def check(files, graph, reexports):
    """files: (target, path, text); graph: target -> direct dependencies."""
    problems = []
    for target, path, text in files:
        allowed = set(graph[target])
        for d in graph[target]:
            allowed |= reexports.get(d, set())
        for attribute, module, line in imports(text):
            if module == target:
                continue
            if module not in graph and SERVER.match(module) and target not in SERVER_TARGETS:
                problems.append(f"{path}:{line}: {target} stays free of NIO and the database, not {module} "
                                f"(only {', '.join(sorted(SERVER_TARGETS))})")
            elif target in PURE and module not in graph:
                problems.append(f"{path}:{line}: {target} builds as Embedded Swift and imports no system module, not {module}")
            elif module in graph and module not in allowed:
                problems.append(
                    f"{path}:{line}: {target} may not import {module} (Package.swift: {target} depends on "
                    f"{', '.join(sorted(graph[target])) or 'nothing'})")
    return problems

graph = {name: dependencies(t) for name, t in targets.items()}
files = [(name, p, open(p, encoding="utf-8").read()) for name in targets for p in sources(name)]
reexports = {}
for name, path, text in files:
    for attribute, module, _ in imports(text):
        if attribute == "@_exported":
            reexports.setdefault(name, set()).add(module)

# Self-test: an import up the graph and a system import in a pure module fail.
bad = [("PanelTouch", "Sources/PanelTouch/Bad.swift", "import ForceCore\nimport PanelStreaming\n"),
       ("PanelTouch", "Sources/PanelTouch/Bad2.swift", "#if canImport(Glibc)\n  import Glibc\n#endif\n"),
       ("PanelHardware", "Sources/PanelHardware/Bad.swift", "@testable import PanelSimulation\n"),
       ("PanelFactory", "Sources/PanelFactory/Bad.swift", "import NIOCore\nimport SQLKit\n")]
caught = check(bad, graph, reexports)
if len(caught) != 5:
    sys.exit("check-imports: the self-test expected 5 problems, found: " + repr(caught))

bad = [("PanelStreaming", "Sources/PanelStreaming/Bad.swift", "func f(t: TOMLTable) {}\n"),
       ("PanelFirmware", "Sources/PanelFirmware/Bad.swift", "let s = board.frontEnd.kind == \"sim\"\n"),
       ("panelctl", "Sources/panelctl/Bad.swift", "if h.bus == \"sim\" {}\n// TOMLTable in a comment is fine\n")]
caught = check_parsing(bad)
if len(caught) != 3:
    sys.exit("check-imports: the parsing self-test expected 3 problems, found: " + repr(caught))

problems = check(files, graph, reexports) + check_parsing(files)
for p in problems:
    print(p, file=sys.stderr)
if problems:
    sys.exit(f"check-imports: {len(problems)} import(s) against the module graph in Package.swift")
print(f"check-imports: {len(files)} files in {len(targets)} targets import only what Package.swift allows", file=sys.stderr)
PY
