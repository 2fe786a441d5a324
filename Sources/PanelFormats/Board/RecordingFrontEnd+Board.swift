import PanelHardware

extension RecordingFrontEnd {
  /// Opens `path` and checks that it has `board`'s cells.
  public init(path: String, board: Board) throws(FileError) {
    try self.init(path: path, cells: board.cellCount, board: board.name)
  }
}
