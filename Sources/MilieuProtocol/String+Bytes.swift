#if canImport(Glibc)
import Glibc
#endif

extension String {
    /// Whether the string's UTF-8 is `bytes`, byte for byte. Not `==`, which equates canonically
    /// equivalent spellings (a precomposed `é` and an `e` with a combining accent). A string not
    /// stored contiguously (none that a request makes) counts as different. Inlinable: the server
    /// asks it of every hot write.
    @inlinable package func hasUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        utf8.count == bytes.count
            && utf8.withContiguousStorageIfAvailable { own in
                // The same storage (another copy of this string's) needs no comparison.
                bytes.isEmpty || UnsafeRawPointer(own.baseAddress!) == bytes.baseAddress
                    || memcmp(own.baseAddress!, bytes.baseAddress!, bytes.count) == 0
            } == true
    }

    /// Whether `other` has this string's UTF-8, byte for byte (`hasUTF8`): what a memo of paths
    /// compares, so that each client is told the bytes it spelled.
    @inlinable package func hasSameUTF8(as other: String) -> Bool {
        other.utf8.withContiguousStorageIfAvailable { hasUTF8(UnsafeRawBufferPointer($0)) } == true
    }
}
