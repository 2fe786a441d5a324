import Testing

@testable import PanelCalibration

/// The certificate's page comes from `Templates/certificate.html`; its
/// slots are `Certificate.Slot`'s cases, each used (GoldenOutputTests holds
/// the pages' bytes).
@Suite struct CertificateTemplateTests {
  enum Slot: String, CaseIterable {
    case title, rows, note
  }

  @Test func theCertificatesTemplateUsesEverySlotItNames() {
    #expect(Set(Certificate.template.slots.map(\.rawValue)) == Set(Certificate.Slot.allCases.map(\.rawValue)))
  }

  /// A slot alone on its line replaces the line (its text brings its own
  /// newlines, or nothing); a slot within a line is filled in place.
  @Test func blocksReplaceTheirLineAndInlineSlotsTheirPlace() {
    let template = HTMLTemplate<Slot>("<h1>{{title}}</h1>\n<table>\n{{rows}}\n</table>\n{{note}}\nend {{title}}\n")
    #expect(template.slots == [.title, .rows, .note, .title])
    let page = template.render { slot in
      switch slot {
      case .title: "A &amp; B"
      case .rows: "<tr>1</tr>\n<tr>2</tr>\n"
      case .note: ""
      }
    }
    #expect(page == "<h1>A &amp; B</h1>\n<table>\n<tr>1</tr>\n<tr>2</tr>\n</table>\nend A &amp; B\n")
  }
}
