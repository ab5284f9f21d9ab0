import LibC

/// Whether `path` is a folder, following symbolic links (`stat(2)`), with no Foundation.
package func isFolder(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
}
