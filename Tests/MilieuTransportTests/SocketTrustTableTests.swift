import Foundation
import MilieuTransport
import Testing

/// SPEC §1.2's rule for trusting a socket path, held to `protocol/socket-trust.json`: the cases
/// the Python and Node clients' implementations are held to as well (issue #26, item 14).
@Suite struct SocketTrustTableTests {
    /// A file system made of the table's entries.
    struct TableFileSystem: SocketTrust.FileSystem {
        let entries: [String: [String: String]]
        let uids: [String: UInt32]

        func entry(at path: String) -> SocketTrust.Entry? {
            guard let entry = entries[path], let type = entry["type"], let owner = entry["owner"], let uid = uids[owner] else { return nil }
            let kind: SocketTrust.Entry.Kind =
                switch type {
                case "directory": .directory
                case "symlink": .symbolicLink
                case "socket": .socket
                default: .other
                }
            return SocketTrust.Entry(kind: kind, uid: uid, mode: UInt32(entry["mode"] ?? "0777", radix: 8) ?? 0)
        }

        func target(ofLink path: String) -> String? { entries[path]?["target"] }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let path: String
        let cwd: String
        let purpose: SocketTrust.Purpose
        let files: [String: [String: String]]
        let expect: [String: String]
        var testDescription: String { name }
    }

    static let table: (me: UInt32, uids: [String: UInt32], base: [String: [String: String]], cases: [Case]) = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../protocol/socket-trust.json")
        guard let data = try? Data(contentsOf: url), let top = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return (0, [:], [:], [])
        }
        let strings = { (value: Any?) -> [String: [String: String]] in
            (value as? [String: [String: Any]] ?? [:]).mapValues { $0.mapValues { "\($0)" } }
        }
        let cases = (top["cases"] as? [[String: Any]] ?? []).map { item in
            Case(
                name: item["name"] as? String ?? "", path: item["path"] as? String ?? "", cwd: item["cwd"] as? String ?? "/",
                purpose: SocketTrust.Purpose(rawValue: item["purpose"] as? String ?? "") ?? .connect, files: strings(item["files"]),
                expect: (item["expect"] as? [String: Any] ?? [:]).mapValues { "\($0)" })
        }
        let uids = (top["uids"] as? [String: Int] ?? [:]).mapValues { UInt32($0) }
        return (UInt32(top["me"] as? Int ?? 0), uids, strings(top["base"]), cases)
    }()

    @Test func theTableIsRead() {
        #expect(Self.table.cases.count >= 25)
    }

    @Test(arguments: table.cases)
    func eachCaseGetsItsVerdict(_ item: Case) {
        let fileSystem = TableFileSystem(entries: Self.table.base.merging(item.files) { $1 }, uids: Self.table.uids)
        let verdict = SocketTrust.judge(item.path, for: item.purpose, me: Self.table.me, workingDirectory: item.cwd, in: fileSystem)
        switch verdict {
        case .success(let resolved):
            #expect(item.expect["trusted"] == "1", "trusted, resolved to \(resolved)")
            #expect(resolved == item.expect["resolved"])
        case .failure(let refusal):
            #expect(item.expect["trusted"] == "0", "refused: \(refusal.why)")
            #expect(refusal.reason.rawValue == item.expect["reason"])
            #expect(refusal.path == item.expect["at"])
            #expect(refusal.why == item.expect["message"])
        }
    }
}
