import ForceCore
import PanelCalibration
import PanelFormats
import PanelHardware
import PanelSimulation
import PanelStreaming

extension Board {
  /// Loads and checks a board file, its `[frontend]` table included. Every
  /// problem is a `FileError` naming the file, the line and the field.
  public static func load(path: String) throws(FileError) -> Board {
    try Board.load(path: path, checkFrontEnd: FrontEndFactory.check)
  }

  /// Builds a board from a parsed board file.
  public init(table root: TOMLTable) throws(FileError) {
    try self.init(table: root, checkFrontEnd: FrontEndFactory.check)
  }
}
