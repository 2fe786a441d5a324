import ForceCore

/// Fixed-capacity storage with one slot per touch: as many touches as the
/// core reports contacts in a frame, `Capacity.contacts` (a type's count
/// must be a literal; a test checks that the two agree).
public typealias TouchArray<Element> = InlineArray<16, Element>
