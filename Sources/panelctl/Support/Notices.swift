import PanelFirmware

/// What a front end reports while running (a chip failed, reset or came
/// back) goes to standard error as warnings, one line each.
enum Notices {
  static func report<F: FrontEnd>(from source: inout F) {
    while let notice = source.takeNotice() {
      Terminal.writeError("panelctl: warning: \(notice)\n")
    }
  }
}
