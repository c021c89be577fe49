import MilieuJSON

/// One change to the snapshot's tables, as a log record carries it and a fold applies it.
public enum StoredWrite: Sendable, Equatable {
    /// A registered type (or declared environment key) under its name.
    case type(name: String, declaration: JSON)
    /// A retained view's declaration; the view takes the last place in mount order.
    case view(path: String, declaration: JSON)
    /// A durable value of a view: `name` is `var` or `var.property`.
    case value(view: String, name: String, value: JSON)
    /// The view went: its declaration, its values and its versions are forgotten.
    case removeView(path: String)
    /// The view (`name` empty) or the object its variable `name` owns changed at this record's
    /// version, where no `value` or `view` write says so.
    case version(view: String, name: String)
}

extension StoredWrite {
    /// Whether this write, coming right after `earlier`, leaves the fold nothing of it to do:
    /// both set the same key's value. The fold keeps only a key's last value, and stamps what
    /// holds the key with the latest version that wrote it, which is this write's. Between two
    /// writes that are not adjacent another may add or drop the view, so only adjacent ones
    /// count. A client that sets the same property again and again (a slider, a field typed
    /// into, or a benchmark) then leaves the fold one write per key, not one per request: the
    /// fold's thread shares the daemon's CPU, and at some 1,300 instructions a write it cost
    /// an eighth again of what the event loop spends on a write (issue #31).
    func supersedes(_ earlier: borrowing StoredWrite) -> Bool {
        guard case .value(let view, let name, _) = self else { return false }
        switch earlier {
        case .value(let earlierView, let earlierName, _): return name == earlierName && view == earlierView
        default: return false
        }
    }

    /// A record's writes are a JSON list of entries,
    /// `[["t",name,decl],["v",path,decl],["s",view,name,value],["r",path],["c",view,name]]`, so that a
    /// record is as readable as the snapshot's rows. This writes `write`'s entry. Borrowed, so that
    /// nothing of it is copied: the store encodes each write as it is handed over, before moving it
    /// into the turn's batch, where a switch on the batch's element copied every field first (its
    /// strings retained and released, some 130 instructions a write).
    ///
    /// A `value` write's head, its tag, view and name, comes from `valueHead` when the write before
    /// it that had one was to the same place.
    static func encode(_ write: borrowing StoredWrite, into sink: inout JSONSink, valueHead: inout WrittenMemo) {
        switch write {
        case .type(let name, let declaration):
            sink.writeRaw(#"["t","#)
            sink.writeString(name)
            sink.writeRaw(UInt8(ascii: ","))
            sink.write(declaration)
        case .view(let path, let declaration):
            sink.writeRaw(#"["v","#)
            sink.writeString(path)
            sink.writeRaw(UInt8(ascii: ","))
            sink.write(declaration)
        case .value(let view, let name, let value):
            sink.write(memo: &valueHead, view, name) { sink in
                sink.writeRaw(#"["s","#)
                sink.writeString(view)
                sink.writeRaw(UInt8(ascii: ","))
                sink.writeString(name)
                sink.writeRaw(UInt8(ascii: ","))
            }
            sink.write(value)
        case .removeView(let path):
            sink.writeRaw(#"["r","#)
            sink.writeString(path)
        case .version(let view, let name):
            sink.writeRaw(#"["c","#)
            sink.writeString(view)
            sink.writeRaw(UInt8(ascii: ","))
            sink.writeString(name)
        }
        sink.writeRaw(UInt8(ascii: "]"))
    }

    /// The writes of a record's list (each entry `encode`'s), or nil when the bytes are not such
    /// a list.
    static func decode(_ bytes: ArraySlice<UInt8>) -> [StoredWrite]? {
        // Two levels more than any value a client could send, for the list and the entry.
        guard case .array(let entries)? = try? JSON(parsing: bytes, limits: JSONLimits(maxDepth: JSONLimits.default.maxDepth + 2))
        else { return nil }
        var writes: [StoredWrite] = []
        writes.reserveCapacity(entries.count)
        for entry in entries {
            guard case .array(let fields) = entry, case .string(let tag)? = fields.first else { return nil }
            switch (tag, fields.count) {
            case ("t", 3):
                guard let name = fields[1].stringValue else { return nil }
                writes.append(.type(name: name, declaration: fields[2]))
            case ("v", 3):
                guard let path = fields[1].stringValue else { return nil }
                writes.append(.view(path: path, declaration: fields[2]))
            case ("s", 4):
                guard let view = fields[1].stringValue, let name = fields[2].stringValue else { return nil }
                writes.append(.value(view: view, name: name, value: fields[3]))
            case ("r", 2):
                guard let path = fields[1].stringValue else { return nil }
                writes.append(.removeView(path: path))
            case ("c", 3):
                guard let view = fields[1].stringValue, let name = fields[2].stringValue else { return nil }
                writes.append(.version(view: view, name: name))
            default: return nil
            }
        }
        return writes
    }
}
