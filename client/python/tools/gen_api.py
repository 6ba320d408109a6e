#!/usr/bin/python3
"""Writes neardup/messages.py and neardup/_methods.py from the API's proto.

Reads the descriptors of neardup.v1 (the neardup_pb2 module protoc made
from proto/neardup/v1/neardup.proto) and writes, into the package folder:

  messages.py  one dataclass per message and one IntEnum per enum, typed,
               with the proto's comments left out; deprecated fields are
               left out too (the raw message still has them: to_proto());
  _methods.py  one method per unary RPC, for the sync and the asyncio
               client, taking the request's fields as keyword arguments.

Usage: gen_api.py PACKAGE_DIR   (PACKAGE_DIR/v1/neardup_pb2.py must exist)
"""

import importlib.util
import keyword
import os
import re
import sys

from google.protobuf.descriptor import FieldDescriptor as F

SCALARS = {
    F.TYPE_DOUBLE: ("float", "0.0"), F.TYPE_FLOAT: ("float", "0.0"),
    F.TYPE_INT64: ("int", "0"), F.TYPE_UINT64: ("int", "0"),
    F.TYPE_INT32: ("int", "0"), F.TYPE_FIXED64: ("int", "0"),
    F.TYPE_FIXED32: ("int", "0"), F.TYPE_BOOL: ("bool", "False"),
    F.TYPE_STRING: ("str", '""'), F.TYPE_BYTES: ("bytes", 'b""'),
    F.TYPE_UINT32: ("int", "0"), F.TYPE_SFIXED32: ("int", "0"),
    F.TYPE_SFIXED64: ("int", "0"), F.TYPE_SINT32: ("int", "0"),
    F.TYPE_SINT64: ("int", "0"),
}
# Unary RPCs the clients retry on UNAVAILABLE: a second try does what the
# first would have. Not CreateCollection, DropCollection, CreateBackup.
# Nor Upsert (a retry of one that was written reports `replaced`, or with
# insert_only_below may see a near-copy stored meanwhile) or Delete (a
# retry of one that went through answers NOT_FOUND).
IDEMPOTENT = {"GetCollection", "ListCollections", "Get", "Query",
              "Fingerprint", "Compare", "Stats"}
# Names a generated method takes besides the request's fields.
METHOD_NAMES = {"self", "timeout"}


def snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def py_name(descriptor):
    """Dataclass or enum name: nested ones as Outer.Inner."""
    names = []
    while descriptor is not None:
        names.append(descriptor.name)
        descriptor = descriptor.containing_type
    return ".".join(reversed(names))


def deprecated(field):
    return field.GetOptions().deprecated


def check_name(field):
    """The generated code uses the field's name as it is: fail loudly on a
    name it cannot be (a new field needs a rule here first)."""
    if keyword.iskeyword(field.name) or field.name in ("field", "Message"):
        sys.exit(f"gen_api.py: field {field.full_name} is named "
                 f"{field.name!r}, which the generated code cannot use")


def is_map(field):
    return (field.type == F.TYPE_MESSAGE and
            field.message_type.GetOptions().map_entry)


def has_presence(field):
    """proto3 optional or a oneof member: None when unset."""
    return field.containing_oneof is not None


def value_type(field):
    if field.type == F.TYPE_MESSAGE:
        return py_name(field.message_type)
    if field.type == F.TYPE_ENUM:
        return py_name(field.enum_type)
    return SCALARS[field.type][0]


def annotation(field):
    if is_map(field):
        key, value = field.message_type.fields
        return f"Dict[{value_type(key)}, {value_type(value)}]"
    if field.label == F.LABEL_REPEATED:
        return f"List[{value_type(field)}]"
    if field.type == F.TYPE_MESSAGE or has_presence(field):
        return f"Optional[{value_type(field)}]"
    return value_type(field)


def default(field):
    if is_map(field):
        return "field(default_factory=dict)"
    if field.label == F.LABEL_REPEATED:
        return "field(default_factory=list)"
    if field.type == F.TYPE_MESSAGE or has_presence(field):
        return "None"
    if field.type == F.TYPE_ENUM:
        # Inside its own message's class body the enum goes by its name;
        # any other is looked up when an instance is made (it may be
        # defined further down).
        if field.enum_type.containing_type == field.containing_type:
            return f"{field.enum_type.name}(0)"
        if field.enum_type.containing_type is None:  # top level: above
            return f"{field.enum_type.name}(0)"
        return (f"field(default_factory=lambda: "
                f"{py_name(field.enum_type)}(0))")
    return SCALARS[field.type][1]


def enum_source(enum, indent):
    values = [v.name for v in enum.values]
    prefix = os.path.commonprefix(values)
    prefix = prefix[:prefix.rfind("_") + 1] if "_" in prefix else ""
    lines = [f"{indent}class {enum.name}(enum.IntEnum):"]
    for value in enum.values:
        name = value.name[len(prefix):] or value.name
        if name[0].isdigit():
            name = "_" + name
        lines.append(f"{indent}    {name} = {value.number}")
    return lines


def message_source(message, indent=""):
    lines = [f"{indent}@dataclass", f"{indent}class {message.name}(Message):"]
    lines.append(f'{indent}    """neardup.v1.{py_name(message)}: see '
                 f'proto/neardup/v1/neardup.proto."""')
    for enum in message.enum_types:
        lines += enum_source(enum, indent + "    ")
    for nested in message.nested_types:
        if not nested.GetOptions().map_entry:
            lines += message_source(nested, indent + "    ")
    for field in message.fields:
        if deprecated(field):
            continue
        check_name(field)
        lines.append(f"{indent}    {field.name}: {annotation(field)} = "
                     f"{default(field)}")
    lines.append("")
    return lines


def messages_py(file):
    out = ['"""The API\'s messages as typed dataclasses (generated by',
           "client/python/tools/gen_api.py from proto/neardup/v1/",
           'neardup.proto: do not edit)."""', "",
           "from __future__ import annotations", "", "import enum",
           "from dataclasses import dataclass, field",
           "from typing import Dict, List, Optional", "",
           "from neardup._convert import Message, register",
           "from neardup.v1 import neardup_pb2", "", ""]
    for enum in file.enum_types_by_name.values():
        out += enum_source(enum, "") + ["", ""]
    for message in file.message_types_by_name.values():
        out += message_source(message) + [""]
    out += ["register(globals(), neardup_pb2)", ""]
    return "\n".join(out)


# Requests whose collection may be left out (Stats: then every one).
OPTIONAL_COLLECTION = {"StatsRequest"}


def method_params(request):
    """(positional, keyword-only) parameters of a method for `request`:
    the collection's name comes first, positional, unless it is optional."""
    fields = [f for f in request.fields if not deprecated(f)]
    first = [f for f in fields[:1] if f.name in ("collection", "name") and
             request.name not in OPTIONAL_COLLECTION]
    rest = [f for f in fields if f not in first]
    return first, rest


def methods_py(file):
    service = file.services_by_name["NearDup"]
    out = ['"""One method per unary RPC (generated by',
           "client/python/tools/gen_api.py: do not edit).", '"""', "",
           "from __future__ import annotations", "",
           "from typing import Any, Dict, List, Optional, Type, TypeVar, Union",
           "",
           "from neardup._convert import as_bytes",
           "from neardup.messages import *  # noqa: F401,F403", "",
           '_T = TypeVar("_T")', "", ""]
    for kind in ("sync", "async"):
        cls = "_SyncMethods" if kind == "sync" else "_AsyncMethods"
        out.append(f"class {cls}:")
        prefix = "async def" if kind == "async" else "def"
        out.append(f"    {prefix} _unary(self, rpc: str, request: Any,\n"
                   "            response: Type[_T], retry: bool,\n"
                   "            timeout: Optional[float]) -> _T:\n"
                   "        raise NotImplementedError\n")
        for method in service.methods:
            if method.client_streaming or method.server_streaming:
                continue
            request, response = method.input_type, method.output_type
            first, rest = method_params(request)
            for f in first + rest:
                if f.name in METHOD_NAMES:
                    sys.exit(f"gen_api.py: {request.name}.{f.name} collides "
                             f"with a parameter of the generated method")
            params = ["self"]
            params += [f"{f.name}: {param_annotation(f)}" for f in first]
            params.append("*")
            params += [f"{f.name}: {param_annotation(f)} = {default_arg(f)}"
                       for f in rest]
            params.append("timeout: Optional[float] = None")
            args = ", ".join(f"{f.name}={arg_value(f)}" for f in first + rest)
            prefix = "async def" if kind == "async" else "def"
            call = "await self._unary" if kind == "async" else "self._unary"
            out.append(f"    {prefix} {snake(method.name)}(")
            out.append("            " + ",\n            ".join(params) +
                       f") -> {py_name(response)}:")
            out.append(f'        """neardup.v1.NearDup/{method.name}: the '
                       f"{request.name} fields as keywords; returns "
                       f'{response.name}."""')
            out.append(f"        return {call}(")
            out.append(f'            "{method.name}", {request.name}({args}),')
            out.append(f"            {response.name}, "
                       f"{method.name in IDEMPOTENT}, timeout)")
            out.append("")
        out.append("")
    return "\n".join(out)


def default_arg(field):
    """Keyword defaults: None for containers (a fresh one per call)."""
    if is_map(field) or field.label == F.LABEL_REPEATED:
        return "None"
    if field.type == F.TYPE_ENUM:
        return f"{py_name(field.enum_type)}(0)"
    return default(field)


def param_annotation(field):
    if is_map(field) or field.label == F.LABEL_REPEATED:
        return f"Optional[{annotation(field)}]"
    if field.type == F.TYPE_BYTES:  # texts: str taken as UTF-8
        return annotation(field).replace("bytes", "Union[bytes, str]")
    return annotation(field)


def arg_value(field):
    if is_map(field):
        return f"{field.name} if {field.name} is not None else {{}}"
    if field.label == F.LABEL_REPEATED:
        return f"{field.name} if {field.name} is not None else []"
    if field.type == F.TYPE_BYTES:
        return f"as_bytes({field.name})"
    return field.name


def main():
    package = os.path.abspath(sys.argv[1])
    # By its path: importing the package would need what is being made.
    spec = importlib.util.spec_from_file_location(
        "neardup.v1.neardup_pb2",
        os.path.join(package, "v1", "neardup_pb2.py"))
    pb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pb)
    file = pb.DESCRIPTOR
    for name, text in (("messages.py", messages_py(file)),
                       ("_methods.py", methods_py(file))):
        with open(os.path.join(package, name), "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
