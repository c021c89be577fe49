import MilieuJSON
import MilieuProtocol

/// The text people see for the results of commands: values as JSON, versions, mounts,
/// watches and types.
struct ResultRenderer {
    let style: Style

    /// A value as pretty JSON (objects and arrays over several lines).
    func value(_ value: JSON) -> String {
        switch value {
        case .array(let items) where !items.isEmpty: value.prettyText
        case .object(let members) where !members.isEmpty: value.prettyText
        default: value.jsonText
        }
    }

    func version(_ result: VersionResult) -> String { version(result.version) }

    /// `view/controls`: one line a control, as the body shows it, with its value.
    ///
    ///     Button("로그인")  disabled
    ///     TextField("이메일을 입력해 주세요...") = "kim@example.com"
    func controls(_ result: ViewControlsRequest.Result) -> String {
        guard !result.controls.isEmpty else { return style.dim("\(result.path) shows no controls") }
        return result.controls.map { control in
            let names = [
                "button": "Button", "textField": "TextField", "secureField": "SecureField", "toggle": "Toggle", "stepper": "Stepper",
                "picker": "Picker", "navigationLink": "NavigationLink",
            ]
            var line = "\(names[control.kind] ?? control.kind)(\(JSON.string(control.label).jsonText))"
            if control.redacted {
                line += " = " + style.dim("<secure>")
            } else if let value = control.value {
                line += " = " + value.jsonText
            }
            if let range = control.range, range.count == 2 { line += style.dim("  in \(range[0])...\(range[1])") }
            if let options = control.options { line += style.dim("  of " + options.map(\.jsonText).joined(separator: ", ")) }
            if control.disabled { line += "  " + style.yellow("disabled") }
            return line
        }.joined(separator: "\n")
    }

    private func version(_ version: Int) -> String { style.dim("ok, version \(version)") }

    /// `call`: the action's result, when it returns one, then the version.
    func call(_ result: GraphCallRequest.Result) -> String {
        guard !result.result.isNull else { return version(result.version) }
        return value(result.result) + "\n" + version(result.version)
    }

    /// `view/mount`: the path, the objects it holds, its first body.
    /// A mount; `vanishesOnExit`: milieu leaves after its commands, taking the view with it.
    func mount(_ result: ViewMountRequest.Result, vanishesOnExit: Bool = false) -> String {
        var lines = ["\(style.green("mounted")) \(style.bold(result.path))  \(style.dim("version \(result.version)"))"]
        if vanishesOnExit {
            lines[0] += style.yellow("  (unmounted when milieu exits; add \"retain\": true to keep it)")
        }
        for (name, object) in result.objects { lines.append("  \(name): \(style.cyan(object.stringValue ?? object.jsonText))") }
        for line in result.body { lines.append("  \(style.dim("│")) \(line)") }
        return lines.joined(separator: "\n")
    }

    /// A new watch, `note` after its first line, and the view targets not mounted yet.
    func watch(_ record: WatchRecord, note: String = "") -> String {
        let line =
            "\(style.bold("w\(record.number)")) watching \(record.targetsText)  \(style.dim("from version \(record.lastShown)"))" + note
        guard !record.notMounted.isEmpty else { return line }
        let paths = record.notMounted.joined(separator: ", ")
        return line + "\n  " + style.yellow("not mounted yet: ") + paths + style.dim("  (shown once a view is mounted there)")
    }

    func watchList(_ records: [WatchRecord]) -> String {
        guard !records.isEmpty else { return "no watches (watch <keypath or view path>... starts one)" }
        return records.map { record in
            let state = record.daemonID == nil ? "waiting for the daemon" : "shown up to version \(record.lastShown)"
            return "\(style.bold("w\(record.number)"))  \(record.targetsText)  \(style.dim(state))"
        }.joined(separator: "\n")
    }

    /// `schema/types`, one line per type, then the environment keys with their defaults.
    func typeList(_ types: [TypeDescription], environmentKeys: [EnvironmentKeyDescription]) -> String {
        let keys = environmentKeys.map { "\($0.name) = \($0.defaultValue.jsonText)" }
        let lines = types.map { type in
            var line = "\(style.bold(type.name)) \(style.dim("(" + kindNote(type) + ")"))  "
            line += type.properties.map(\.name).joined(separator: ", ")
            if !type.actions.isEmpty { line += "; " + type.actions.map { "\($0.name)()" }.joined(separator: ", ") }
            return line
        }
        return (lines + [style.bold("environment keys") + "  " + keys.joined(separator: ", ")]).joined(separator: "\n")
    }

    /// One type in full: each property with its type, default and constraints; actions.
    func type(_ type: TypeDescription) -> String {
        var lines = ["\(style.bold(type.name))  \(style.dim(kindNote(type)))"]
        for property in type.properties {
            var line = "  \(property.name): \(style.cyan(property.type))"
            if let value = property.defaultValue { line += " = \(value.jsonText)" }
            var notes: [String] = []
            if property.computed { notes.append("computed") }
            if property.secure { notes.append("secure") }
            notes += property.constraints.notes
            if !notes.isEmpty { line += "  " + style.dim(notes.joined(separator: ", ")) }
            lines.append(line)
        }
        for action in type.actions {
            lines.append("  \(style.magenta("action")) \(action.name)(\(action.params.joined(separator: ", ")))")
        }
        return lines.joined(separator: "\n")
    }

    private func kindNote(_ type: TypeDescription) -> String {
        type.builtIn ? "\(type.style), built-in" : type.style
    }
}
