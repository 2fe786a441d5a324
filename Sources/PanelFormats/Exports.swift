// The low layer under the schemas: whoever reads a board reads TOML and
// FileError too.
@_exported import PanelFiles
