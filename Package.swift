// swift-tools-version: 6.0
import Foundation
import PackageDescription

/// Apple's swift-syntax as the toolchain ships it, for reading Swift source (`MilieuSwift`): the
/// host libraries in `usr/lib/swift/host`, beside the toolchain's `libPackageDescription.so`,
/// which this manifest's own process has loaded (its path is in `/proc/self/maps`).
/// `MILIEU_SWIFT_SYNTAX` names the directory instead. Without it the build stops here, loudly.
let swiftSyntaxHost: String = {
    if let directory = ProcessInfo.processInfo.environment["MILIEU_SWIFT_SYNTAX"] { return directory }
    // FileHandle, not String(contentsOfFile:): /proc files report no size, and that read came back short.
    let maps = String(decoding: FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
    let library = "/lib/swift/pm/ManifestAPI/libPackageDescription.so"
    guard let line = maps.split(separator: "\n").first(where: { $0.hasSuffix(library) }), let start = line.firstIndex(of: "/") else {
        fatalError(
            "swift-syntax's host libraries were not found (no libPackageDescription.so in /proc/self/maps): set MILIEU_SWIFT_SYNTAX to the toolchain's usr/lib/swift/host"
        )
    }
    let host = String(line[start...].dropLast(library.count)) + "/lib/swift/host"
    guard FileManager.default.fileExists(atPath: host + "/SwiftParser.swiftmodule") else {
        fatalError(
            "swift-syntax's host libraries are not in \(host): set MILIEU_SWIFT_SYNTAX to a directory that has SwiftParser.swiftmodule")
    }
    return host
}()

/// What a target that imports `MilieuSwift` (or swift-syntax) needs: the host modules' directory.
let swiftSyntaxModules: [SwiftSetting] = [.unsafeFlags(["-I", swiftSyntaxHost])]

/// Strict settings shared by every target: Swift 6 mode is the tools default;
/// these add the upcoming checks the style guide asks for.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The daemon's modules: in release builds without the runtime's exclusivity checks, which cost
/// a tenth of a mount in the engine and, across the server, transport, protocol, JSON and store,
/// 2.7k of a pipelined `graph/set`'s 33k instructions (issue #31's profile). Debug builds, which
/// the tests run, keep them: a violation still fails there.
let daemonModule: [SwiftSetting] = strict + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

/// How the release milieud is linked, for what it holds at idle (issue #31): the Swift runtime
/// statically, so that only the parts it uses are loaded, by lld with relative relocations
/// (`.rela.dyn` from 916 KiB to 6 KiB), so that relocating the runtime dirties few pages.
let daemonLinking: [LinkerSetting] = [
    .unsafeFlags(["-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"], .when(configuration: .release))
]

let package = Package(
    name: "Milieu",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MilieuEngine", targets: ["MilieuEngine"]),
        .library(name: "MilieuJSON", targets: ["MilieuJSON"]),
        .library(name: "MilieuTransport", targets: ["MilieuTransport"]),
        .library(name: "MilieuClient", targets: ["MilieuClient"]),
        .executable(name: "milieud", targets: ["milieud"]),
        .executable(name: "milieu", targets: ["milieu"]),
    ],
    targets: [
        .target(name: "MilieuJSON", swiftSettings: daemonModule),
        // Graph's doc comment says why its exclusivity holds unchecked.
        .target(name: "MilieuEngine", dependencies: ["CMilieuRegex", "MilieuJSON", "MilieuProtocol"], swiftSettings: daemonModule),
        // RE2 (Debian's libre2-dev) behind a C header: linear-time matching for declared patterns.
        .target(name: "CMilieuRegex"),
        .target(name: "CMilieuShims"),
        .target(name: "MilieuTransport", dependencies: ["CMilieuShims"], swiftSettings: daemonModule),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "MilieuStore", dependencies: ["CSQLite", "CMilieuShims", "MilieuJSON"], swiftSettings: daemonModule),
        .target(name: "MilieuProtocol", dependencies: ["MilieuJSON"], swiftSettings: daemonModule),
        .target(
            name: "MilieuServer", dependencies: ["CMilieuShims", "MilieuEngine", "MilieuProtocol", "MilieuTransport", "MilieuStore"],
            swiftSettings: daemonModule, plugins: ["EmbedText"]),
        .executableTarget(
            name: "milieud", dependencies: ["MilieuServer", "MilieuStore"], swiftSettings: daemonModule, linkerSettings: daemonLinking),
        .systemLibrary(name: "CReadline", providers: [.apt(["libreadline-dev"])]),
        .target(name: "MilieuClient", dependencies: ["MilieuJSON", "MilieuProtocol", "MilieuTransport"], swiftSettings: strict),
        .target(
            name: "MilieuInspector", dependencies: ["MilieuClient", "MilieuJSON", "MilieuProtocol", "MilieuSwift", "MilieuTransport"],
            resources: [.embedInCode("Page/inspector.html")], swiftSettings: strict + swiftSyntaxModules),
        // Swift source in: the articles' SwiftUI code as Milieu's declarations, read with swift-syntax.
        .target(
            name: "MilieuSwift", dependencies: ["MilieuJSON"], swiftSettings: strict + swiftSyntaxModules,
            linkerSettings: [
                .unsafeFlags(["-L", swiftSyntaxHost, "-Xlinker", "-rpath", "-Xlinker", swiftSyntaxHost]),
                .linkedLibrary("SwiftSyntax"), .linkedLibrary("SwiftParser"), .linkedLibrary("SwiftDiagnostics"),
                .linkedLibrary("SwiftParserDiagnostics"), .linkedLibrary("SwiftOperators"),
            ]),
        .executableTarget(
            name: "milieu",
            dependencies: [
                "CReadline", "MilieuClient", "MilieuInspector", "MilieuJSON", "MilieuProtocol", "MilieuSwift", "MilieuTransport",
            ],
            swiftSettings: strict + swiftSyntaxModules, plugins: ["EmbedText"]),
        // protocol/openrpc.json and scenes/*.json compiled into the daemon and the REPL at build time.
        .executableTarget(name: "embed-text", swiftSettings: strict),
        .plugin(name: "EmbedText", capability: .buildTool(), dependencies: ["embed-text"]),
        .target(name: "MilieuTestSupport", dependencies: ["MilieuJSON", "MilieuServer", "MilieuTransport"], swiftSettings: strict),
        .executableTarget(
            name: "milieu-bench", dependencies: ["MilieuEngine", "MilieuJSON", "MilieuTransport", "CMilieuShims"], swiftSettings: strict),
        .testTarget(name: "MilieuJSONTests", dependencies: ["MilieuJSON", "MilieuTestSupport"], swiftSettings: strict),
        .testTarget(name: "MilieuEngineTests", dependencies: ["MilieuEngine", "MilieuProtocol", "MilieuJSON"], swiftSettings: strict),
        .testTarget(name: "MilieuTransportTests", dependencies: ["MilieuTransport"], swiftSettings: strict),
        .testTarget(
            name: "MilieuClientTests", dependencies: ["MilieuClient", "MilieuTestSupport", "MilieuJSON", "MilieuProtocol"],
            swiftSettings: strict),
        .testTarget(
            name: "MilieuREPLTests", dependencies: ["milieu", "MilieuClient", "MilieuTestSupport", "MilieuJSON", "MilieuProtocol"],
            swiftSettings: strict + swiftSyntaxModules),
        .testTarget(
            name: "MilieuSwiftTests", dependencies: ["MilieuSwift", "MilieuEngine", "MilieuJSON", "MilieuProtocol"],
            swiftSettings: strict + swiftSyntaxModules),
        .testTarget(
            name: "MilieuInspectorTests", dependencies: ["MilieuInspector", "MilieuJSON", "MilieuProtocol", "MilieuSwift"],
            swiftSettings: strict + swiftSyntaxModules),
        .testTarget(
            name: "MilieuProtocolTests", dependencies: ["MilieuProtocol", "MilieuJSON", "MilieuTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "MilieuServerTests",
            dependencies: [
                "MilieuTestSupport", "MilieuProtocol", "MilieuJSON", "MilieuTransport", "MilieuServer", "MilieuEngine", "MilieuStore",
            ],
            swiftSettings: strict),
    ]
)
