import PanelFirmware

/// What a front end reports while running (a chip failed, reset or came
/// back) goes to standard error as warnings, one line each.
enum Notices {
  static func report<F: FrontEnd>(from source: inout F) {
    var warnings = WarningLimiter()
    report(from: &source, &warnings)
  }

  /// As `report(from:)`, through `warnings` (a few a minute, the rest counted).
  static func report<F: FrontEnd>(from source: inout F, _ warnings: inout WarningLimiter) {
    while let notice = source.takeNotice() {
      warnings.warn("front end", "panelctl: warning: \(notice)\n")
    }
  }
}
