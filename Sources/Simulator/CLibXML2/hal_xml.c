#include "hal_xml.h"

#include <libxml/xmlreader.h>
#include <stdio.h>
#include <string.h>

static void keep_first_error(void *argument, xmlErrorPtr found) {
    hal_xml_error *error = argument;
    // Warnings (a relative namespace URI, say) are not errors: the document is still well-formed.
    if (error->code != 0 || found == NULL || found->level < XML_ERR_ERROR) return;
    error->code = found->code != 0 ? found->code : -1;
    error->line = found->line;
    error->column = found->int2;
    snprintf(error->message, sizeof error->message, "%s", found->message != NULL ? found->message : "");
    size_t length = strlen(error->message);
    while (length > 0 && (error->message[length - 1] == '\n' || error->message[length - 1] == ' ')) error->message[--length] = 0;
}

int hal_xml_parse(const char *bytes, size_t length, const hal_xml_events *events, void *context, hal_xml_error *error) {
    memset(error, 0, sizeof *error);
    if (length > 0x7fffffff) {
        error->code = -1;
        snprintf(error->message, sizeof error->message, "the document is larger than 2 GiB");
        return -1;
    }
    xmlTextReaderPtr reader = xmlReaderForMemory(bytes, (int)length, NULL, "UTF-8", XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (reader == NULL) {
        error->code = -1;
        snprintf(error->message, sizeof error->message, "libxml2 cannot start a reader");
        return -1;
    }
    xmlTextReaderSetStructuredErrorHandler(reader, keep_first_error, error);
    const char *attributes[2 * 64 + 1];
    int status;
    while ((status = xmlTextReaderRead(reader)) == 1 && error->code == 0) {
        switch (xmlTextReaderNodeType(reader)) {
        case XML_READER_TYPE_ELEMENT: {
            const char *name = (const char *)xmlTextReaderConstName(reader);
            int line = xmlTextReaderGetParserLineNumber(reader);
            int empty = xmlTextReaderIsEmptyElement(reader);
            // Names and values stay valid while the reader is on this element.
            int count = 0;
            while (xmlTextReaderMoveToNextAttribute(reader) == 1) {
                if (count == 64) {
                    error->code = -1;
                    error->line = line;
                    snprintf(error->message, sizeof error->message, "<%s> has more than 64 attributes", name);
                    break;
                }
                attributes[2 * count] = (const char *)xmlTextReaderConstName(reader);
                attributes[2 * count + 1] = (const char *)xmlTextReaderConstValue(reader);
                count += 1;
            }
            if (error->code != 0) break;
            attributes[2 * count] = NULL;
            events->start(context, name, attributes, line);
            xmlTextReaderMoveToElement(reader);
            if (empty) events->end(context, (const char *)xmlTextReaderConstName(reader));
            break;
        }
        case XML_READER_TYPE_END_ELEMENT:
            events->end(context, (const char *)xmlTextReaderConstName(reader));
            break;
        case XML_READER_TYPE_TEXT:
        case XML_READER_TYPE_CDATA:
        case XML_READER_TYPE_WHITESPACE:
        case XML_READER_TYPE_SIGNIFICANT_WHITESPACE: {
            const char *text = (const char *)xmlTextReaderConstValue(reader);
            if (text != NULL) events->text(context, text);
            break;
        }
        default:
            break;
        }
    }
    if (status < 0 && error->code == 0) {
        error->code = -1;
        error->line = xmlTextReaderGetParserLineNumber(reader);
        error->column = xmlTextReaderGetParserColumnNumber(reader);
        snprintf(error->message, sizeof error->message, "the document is not well-formed");
    }
    xmlFreeTextReader(reader);
    return error->code == 0 ? 0 : -1;
}
