import Foundation
import Glibc
import Synchronization
import Testing

@testable import MilieuTransport

@Suite struct LoopbackListenerTests {
    @Test func portZeroTakesAFreePortOnLoopbackAndEchoes() throws {
        let listener = try LoopbackListener()
        defer { listener.close() }
        #expect(listener.port > 0)
        #expect(listener.address == "127.0.0.1:\(listener.port)")
        let running = try RunningLoop { try $0.serve(listener: listener, handler: RecordingHandler()) }
        defer { running.stop() }

        let client = try connectLoopback(port: listener.port)
        defer { _ = close(client) }
        try UnixSocket.writeAll(client, Array("ping".utf8), timeout: 5)
        #expect(try readExactly(client, 4) == Array("ping".utf8))
    }

    @Test func aTakenPortIsAddressInUse() throws {
        let first = try LoopbackListener()
        defer { first.close() }
        #expect(throws: TransportError.self) { try LoopbackListener(port: UInt16(first.port)) }
        do {
            _ = try LoopbackListener(port: UInt16(first.port))
        } catch let error as TransportError {
            #expect(error.code == .addressInUse)
        }
    }

    @Test func aWatchedDescriptorCallsItsBodyUntilItStopsWatching() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &pair) == 0)
        defer { pair.forEach { _ = close($0) } }
        let readable = Atomic<Int>(0)
        let reader = pair[0]
        let running = try RunningLoop()
        defer { running.stop() }
        let watch = try running.sync {
            try running.loop.watchReadable(reader) {
                var byte: UInt8 = 0
                while read(reader, &byte, 1) == 1 { readable.add(1, ordering: .relaxed) }
            }
        }
        _ = write(pair[1], "ab", 2)
        #expect(eventually { readable.load(ordering: .relaxed) == 2 })
        try running.sync { running.loop.stopWatching(watch) }
        _ = write(pair[1], "c", 1)
        _ = try running.sync {}
        #expect(readable.load(ordering: .relaxed) == 2)
    }

    /// A blocking TCP connection to 127.0.0.1:`port`.
    private func connectLoopback(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7f00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw TransportError.systemCall("connect", errno: errno) }
        return fd
    }
}
