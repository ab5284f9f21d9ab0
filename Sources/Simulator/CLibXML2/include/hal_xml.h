// A small C API over libxml2's streaming reader, for GPX and KML: elements with their attributes and lines, text,
// and the first error with its line and column. Swift sees no libxml2 type.
#ifndef HAL_XML_H
#define HAL_XML_H

#include <stddef.h>

/// What the parse reports, in document order. `attributes` is name, value, name, value… and a NULL.
typedef struct hal_xml_events {
    void (*start)(void *context, const char *name, const char *const *attributes, int line);
    void (*end)(void *context, const char *name);
    void (*text)(void *context, const char *text);
} hal_xml_events;

/// The first error: libxml2's code, its message, and where.
typedef struct hal_xml_error {
    int code;
    int line;
    int column;
    char message[256];
} hal_xml_error;

/// Parses `length` bytes of UTF-8 XML, with no network access, no DTD loading and no entity substitution beyond
/// XML's five, stopping at the first error. Returns 0, or -1 with `error` filled.
int hal_xml_parse(const char *bytes, size_t length, const hal_xml_events *events, void *context, hal_xml_error *error);

#endif
