import MilieuProtocol
import MilieuServer
import MilieuStore
import MilieuTransport

#if canImport(Glibc)
import Glibc
#endif

/// `milieud`: the Milieu daemon. Parses its options (`Options`), loads the scene, and serves until stopped.

func fail(_ message: String, status: Int32) -> Never {
    var bytes = Array("milieud: \(message)\n".utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

do {
    let configuration: ServerConfiguration
    switch try Options.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessEnvironment.current) {
    case .help:
        print(Options.usage)
        exit(0)
    case .version:
        print("milieud \(ProtocolInfo.serverVersion) (protocol \(ProtocolInfo.version))")
        exit(0)
    case .serve(let parsed): configuration = parsed
    }
    // Secrets live in this process's memory and its files: keep them out of core files and
    // debuggers, and make every file it creates the user's alone.
    try CoreDumps.disable()
    umask(0o077)
    // One descriptor per client: serve as many as the hard limit allows.
    DescriptorLimit.raiseToHardLimit()
    let inherited = SystemdActivation.listenFDs()
    let listener = try inherited.first.map { try UnixListener(adopting: $0) } ?? UnixListener(path: configuration.socketPath)
    let loop = try EventLoop()
    let server = try Server(configuration: configuration, loop: loop)
    try server.run(listener: listener)
} catch let error as UsageError {
    fail("\(error.message); milieud --help explains each option", status: 2)
} catch let error as TransportError {
    fail("\(error)", status: 1)
} catch let error as StoreError {
    fail("\(error)", status: 1)
} catch {
    fail("\(error)", status: 1)
}
