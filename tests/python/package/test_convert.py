"""The compiled from_proto and to_proto of every message equal the
field-by-field reading of its descriptor, on messages with every field
set."""

import dataclasses
import inspect

from google.protobuf.descriptor import FieldDescriptor

import neardup.client  # noqa: F401  (loads the messages' protobuf module)
from neardup import messages


def fill(message, depth=0, variant=0):
    """Sets every field of `message` but the deprecated ones (the
    dataclasses leave them out): scalars, enums (a number this package does
    not know too), nested messages, two repeated items, a map entry; one
    member of each oneof (the first; with variant 1 the last, and numbers
    this package does not know in singular enums too)."""
    chosen = set()
    fields = list(message.DESCRIPTOR.fields)
    if variant == 1:
        fields.reverse()
    for field in fields:
        if field.GetOptions().deprecated:
            continue
        oneof = field.containing_oneof
        if oneof is not None and not (len(oneof.fields) == 1):
            if oneof.name in chosen:
                continue
            chosen.add(oneof.name)
        is_map = (field.type == FieldDescriptor.TYPE_MESSAGE and
                  field.message_type.GetOptions().map_entry)
        if is_map:
            value_field = field.message_type.fields_by_name["value"]
            target = getattr(message, field.name)
            if value_field.type == FieldDescriptor.TYPE_MESSAGE:
                if depth < 2:
                    fill(target["k"], depth + 1, variant)
            else:
                target["k"] = value_of(value_field, 0)
        elif field.label == FieldDescriptor.LABEL_REPEATED:
            target = getattr(message, field.name)
            for i in range(2):
                if field.type == FieldDescriptor.TYPE_MESSAGE:
                    if depth < 2:
                        fill(target.add(), depth + 1, variant)
                else:
                    target.append(value_of(field, i))
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            if depth < 2:
                fill(getattr(message, field.name), depth + 1, variant)
        else:
            setattr(message, field.name, value_of(field, 0 if variant else 1))
    return message


def value_of(field, i):
    kind = field.type
    if kind == FieldDescriptor.TYPE_ENUM:
        numbers = [v.number for v in field.enum_type.values]
        return 999 if i == 0 and field.enum_type.file.syntax == "proto3" \
            else numbers[min(1 + i, len(numbers) - 1)]
    if kind == FieldDescriptor.TYPE_STRING:
        return f"s{i}"
    if kind == FieldDescriptor.TYPE_BYTES:
        return f"b{i}".encode()
    if kind == FieldDescriptor.TYPE_BOOL:
        return True
    if kind in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return 0.5 + i
    return 7 + i


def test_compiled_converters_equal_the_descriptor_reading():
    classes = [c for _, c in inspect.getmembers(messages, inspect.isclass)
               if dataclasses.is_dataclass(c) and hasattr(c, "_proto")]
    assert len(classes) > 40
    for cls, variant in [(c, v) for c in classes for v in (0, 1)]:
        proto = fill(cls._proto(), variant=variant)
        assert cls.from_proto(proto) == cls.from_proto_by_descriptor(proto), \
            cls.__name__
        empty = cls._proto()
        assert cls.from_proto(empty) == cls.from_proto_by_descriptor(empty)
        # And back: the dataclass makes the same protobuf message, the
        # compiled way and the reference way.
        value = cls.from_proto(proto)
        assert value.to_proto() == proto, cls.__name__
        assert value.to_proto_by_descriptor() == proto, cls.__name__
        assert cls().to_proto() == cls().to_proto_by_descriptor() == empty


def test_two_members_of_a_oneof_are_refused():
    import pytest
    with pytest.raises(ValueError, match="set one of"):
        messages.QueryRequest(collection="c", text=b"x",
                              signatures=messages.Signatures()).to_proto()
