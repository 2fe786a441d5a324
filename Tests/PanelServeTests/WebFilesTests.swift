import Testing
@testable import PanelServe

@Test func filesAreEmbedded() {
  #expect(!WebFiles.dashboard.isEmpty)
}
