import PanelTouch

extension Interaction {
  /// Replaces one item's quick actions (the guidelines are checked).
  public mutating func replaceQuickActions(of item: String, with actions: [QuickAction]) throws(RegionViolation) {
    replaceRegions(try regions.replacingQuickActions(of: item, with: actions))
  }
}
