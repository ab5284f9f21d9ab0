// The C library's Swift module, imported here once: every module that calls libc imports LibC instead of
// repeating the platform switch.

#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#endif
