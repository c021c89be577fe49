import MilieuJSON

/// One control of a view, as `view/controls` lists it (SPEC §9.23).
public struct ControlDescription: Sendable, Equatable {
    /// `button`, `textField`, `secureField`, `toggle`, `stepper`, `picker` or `navigationLink`.
    public var kind: String
    public var label: String
    public var disabled: Bool
    /// What a bound control holds now: absent for a button or a link; `redacted` for a secure one.
    public var value: JSON?
    public var redacted: Bool
    /// A picker's choices.
    public var options: [JSON]?
    /// A stepper's bounds, `[min, max]`.
    public var range: [Int]?

    public init(
        kind: String, label: String, disabled: Bool, value: JSON? = nil, redacted: Bool = false, options: [JSON]? = nil,
        range: [Int]? = nil
    ) {
        self.kind = kind
        self.label = label
        self.disabled = disabled
        self.value = value
        self.redacted = redacted
        self.options = options
        self.range = range
    }

    public var wire: JSON {
        var members: [JSONObject.Member] = [("kind", .string(kind)), ("label", .string(label)), ("disabled", .bool(disabled))]
        if let value { members.append(("value", value)) }
        if redacted { members.append(("redacted", true)) }
        if let options { members.append(("options", .array(options))) }
        if let range { members.append(("range", .array(range.map(JSON.int)))) }
        return .object(JSONObject(uniqueMembers: members))
    }

    public init?(wire: JSON) {
        guard let kind = wire["kind"]?.stringValue, let label = wire["label"]?.stringValue, let disabled = wire["disabled"]?.boolValue
        else { return nil }
        let range = wire["range"]?.arrayValue?.compactMap(\.intValue)
        self.init(
            kind: kind, label: label, disabled: disabled, value: wire["value"], redacted: wire["redacted"]?.boolValue ?? false,
            options: wire["options"]?.arrayValue, range: range)
    }
}

/// `view/controls` (SPEC §9.23): the controls a view's body shows — buttons, fields, toggles,
/// steppers, pickers, navigation links — with their labels, whether each is disabled, and what a
/// bound one holds.
public struct ViewControlsRequest: RPCMethod {
    public static let name = "view/controls"

    public static let effect = MethodEffect.read
    public var path: String

    public init(path: String) { self.path = path }
    public init(params: inout ParamsReader) throws(RPCError) { path = try params.string("path") }
    public var params: JSONObject { ["path": .string(path)] }

    public struct Result: WireResult, Equatable {
        public var path: String
        /// In the order the body shows them.
        public var controls: [ControlDescription]
        public var version: Int

        public init(path: String, controls: [ControlDescription], version: Int) {
            self.path = path
            self.controls = controls
            self.version = version
        }

        public var wire: JSON { ["path": .string(path), "controls": .array(controls.map(\.wire)), "version": .int(version)] }

        public init?(wire: JSON) {
            guard let path = wire["path"]?.stringValue, let items = wire["controls"]?.arrayValue, let version = wire["version"]?.intValue
            else { return nil }
            let controls = items.compactMap(ControlDescription.init(wire:))
            guard controls.count == items.count else { return nil }
            self.init(path: path, controls: controls, version: version)
        }
    }
}

/// `view/tap` (SPEC §9.24): presses the button (or navigation link) labelled `label` in the view
/// at `path`, running its action as one transaction.
public struct ViewTapRequest: RPCMethod {
    public typealias Result = VersionResult
    public static let name = "view/tap"

    public static let effect = MethodEffect.writesValues
    public var path: String
    public var label: String

    public init(path: String, label: String) {
        self.path = path
        self.label = label
    }

    public init(params: inout ParamsReader) throws(RPCError) {
        path = try params.string("path")
        label = try params.string("label")
    }

    public var params: JSONObject { ["path": .string(path), "label": .string(label)] }
}

/// `view/input` (SPEC §9.25): writes `value` through the binding of the text field, secure
/// field, toggle, stepper or picker labelled `label`, as typing or flipping it would.
public struct ViewInputRequest: RPCMethod {
    public typealias Result = VersionResult
    public static let name = "view/input"

    public static let effect = MethodEffect.writesValues
    public var path: String
    public var label: String
    public var value: JSON

    public init(path: String, label: String, value: JSON) {
        self.path = path
        self.label = label
        self.value = value
    }

    public init(params: inout ParamsReader) throws(RPCError) {
        path = try params.string("path")
        label = try params.string("label")
        value = try params.required("value")
    }

    public var params: JSONObject { ["path": .string(path), "label": .string(label), "value": value] }
}
