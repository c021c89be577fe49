import MilieuJSON

/// A declaration's literal values as the parser found them, each with where it was: views that
/// share a declaration keep their own values (`ValueExpression.literal(n)` is the n-th), and
/// `DeclarationCache` compares the next declaration at exactly these places, so the parser is
/// the one grammar that says where literals may be.
struct DeclarationLiterals {
    private(set) var values: [JSON] = []
    /// Each value's place: the `field` the parser named it by (`id`, `state.count`,
    /// `stateObjects.vm.init.num`), which is its key path in the declaration's JSON.
    private(set) var positions: [String] = []

    /// Records `value`, found at `field`; returns its number.
    mutating func record(_ value: JSON, at field: String) -> Int {
        values.append(value)
        positions.append(field)
        return values.count - 1
    }
}
