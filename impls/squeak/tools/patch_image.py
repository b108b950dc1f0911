"""Makes Scratch 1.4's Squeak image run a Smalltalk script named on the command line.

Debian ships no plain Squeak image; its `scratch` package ships Scratch.image, a Squeak
("MIT Squeak 0.9.4", Squeak 2.8 lineage) whose start-up ignores scripts: Scratch emptied
SystemDictionary>>readDocumentFile, the method the image still calls on every start-up.
This tool reads the 32-bit image (format 6502), appends one CompiledMethod equivalent to

    readDocumentFile
        Compiler evaluate: (FileStream oldFileNamed: (self getSystemAttribute: 2)) contentsOfEntireFile

and points SystemDictionary's method dictionary at it. Nothing else in the image changes.
Usage: patch_image.py SOURCE.image TARGET.image
"""
import struct
import sys

BYTE_FORMATS = range(8, 12)


class SqueakImage:
    """Just enough of the object memory to find methods, symbols and globals."""

    def __init__(self, path):
        raw = open(path, "rb").read()
        self.header = bytearray(raw[:64])
        self.data = bytearray(raw[64:])
        version, header_size, self.data_size, self.base, self.special = struct.unpack("<5I", raw[:20])
        if version != 6502 or header_size != 64:
            raise SystemExit(f"{path}: not a 32-bit format-6502 Squeak image (version {version})")
        self.objects = list(self._walk())
        self.compact_classes = self.slot(self.special, 28)
        self.nil = self.slot(self.special, 0)

    def _walk(self):
        offset = 0
        while offset < self.data_size:
            word = self._word(offset)
            kind = word & 3
            if kind == 2:  # free chunk
                offset += word & ~3
                continue
            oop = self.base + offset + {0: 8, 1: 4, 3: 0}[kind]
            yield oop
            offset = oop - self.base + self.byte_size(oop)

    def _word(self, offset):
        return struct.unpack_from("<I", self.data, offset)[0]

    def base_header(self, oop):
        return self._word(oop - self.base)

    def byte_size(self, oop):
        header = self.base_header(oop)
        if header & 3 == 0:
            return self._word(oop - self.base - 8) & ~3
        return header & 0xFC

    def format(self, oop):
        return (self.base_header(oop) >> 8) & 15

    def class_of(self, oop):
        header = self.base_header(oop)
        if header & 3 == 3:
            return self.slot(self.compact_classes, ((header >> 12) & 31) - 1)
        return self._word(oop - self.base - 4) & ~3

    def slot_count(self, oop):
        return self.byte_size(oop) // 4 - 1

    def slot(self, oop, index):
        return self._word(oop - self.base + 4 + 4 * index)

    def set_slot(self, oop, index, value):
        struct.pack_into("<I", self.data, oop - self.base + 4 + 4 * index, value)

    def string(self, oop):
        if oop & 1 or self.format(oop) not in BYTE_FORMATS:
            return None
        size = self.byte_size(oop) - 4 - (self.format(oop) & 3)
        start = oop - self.base + 4
        return self.data[start:start + size].decode("latin1")

    def class_name(self, cls):
        # Class: superclass methodDict format instanceVariables organization subclasses name ...
        if self.slot_count(cls) > 6:
            name = self.string(self.slot(cls, 6))
            if name is not None:
                return name
        return (self.class_name(self.slot(cls, 5)) or "?") + " class"  # Metaclass: thisClass

    def method_entry(self, class_name, selector):
        """(method dictionary, key index) of class_name>>selector."""
        for oop in self.objects:
            if self.format(oop) not in (1, 3) or self.slot_count(oop) < 7:
                continue
            if self.string(self.slot(oop, 6)) != class_name:
                continue
            dictionary = self.slot(oop, 1)
            for index in range(2, self.slot_count(dictionary)):
                if self.string(self.slot(dictionary, index)) == selector:
                    return dictionary, index
        raise SystemExit(f"no method {class_name}>>{selector} in the image")

    def symbol(self, name):
        for oop in self.objects:
            if self.string(oop) == name and self.class_name(self.class_of(oop)) == "Symbol":
                return oop
        raise SystemExit(f"no symbol #{name} in the image")

    def global_association(self, name):
        smalltalk = self.slot(self.special, 8)
        entries = self.slot(smalltalk, 1)
        for index in range(self.slot_count(entries)):
            association = self.slot(entries, index)
            if association != self.nil and self.string(self.slot(association, 0)) == name:
                return association
        raise SystemExit(f"no global {name} in the image")

    def append_method(self, template, literals, bytecodes):
        """A new CompiledMethod at the end of memory, with the header kind of template."""
        padding = (-len(bytecodes)) % 4
        method_header = ((len(literals) << 9) << 1) | 1  # SmallInteger: no temps, no args, no primitive
        body = struct.pack("<I", method_header) + b"".join(struct.pack("<I", lit) for lit in literals)
        body += bytecodes + b"\0" * padding
        words = 1 + len(body) // 4
        template_header = self.base_header(template)
        if template_header & 3 != 3 or words > 63:
            raise SystemExit("expected CompiledMethod to be a compact class")
        header = (template_header & ~0xFC & ~(0xF << 8)) | (words * 4) | ((12 + padding) << 8)
        oop = self.base + self.data_size
        self.data += struct.pack("<I", header) + body
        self.data_size += words * 4
        struct.pack_into("<I", self.header, 8, self.data_size)
        return oop

    def save(self, path):
        with open(path, "wb") as out:
            out.write(bytes(self.header) + bytes(self.data))


def main(source, target):
    image = SqueakImage(source)
    dictionary, index = image.method_entry("SystemDictionary", "readDocumentFile")
    values = image.slot(dictionary, 1)
    literals = [image.symbol("getSystemAttribute:"), image.symbol("oldFileNamed:"),
                image.symbol("contentsOfEntireFile"), image.symbol("evaluate:"),
                image.global_association("Compiler"), image.global_association("FileStream")]
    bytecodes = bytes([
        0x44,  # push Compiler
        0x45,  # push FileStream
        0x70,  # push self (Smalltalk)
        0x77,  # push 2
        0xE0,  # send getSystemAttribute:
        0xE1,  # send oldFileNamed:
        0xD2,  # send contentsOfEntireFile
        0xE3,  # send evaluate:
        0x87,  # pop
        0x78,  # return self
    ]) + b"\0\0\0\0"  # empty source pointer trailer
    method = image.append_method(image.slot(values, index - 2), literals, bytecodes)
    image.set_slot(values, index - 2, method)
    image.save(target)


if __name__ == "__main__":
    main(*sys.argv[1:3])
