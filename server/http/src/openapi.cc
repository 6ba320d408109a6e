#include "neardup/http/openapi.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/version.h"
#include "neardup/http/routes.h"
#include "nlohmann/json.hpp"

namespace neardup::http {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using Json = nlohmann::ordered_json;

std::string RefOf(const Descriptor* type) {
  return absl::StrCat("#/components/schemas/", type->full_name());
}

// proto3 JSON's shape of one value of `field` (not the repetition).
Json ValueSchema(const FieldDescriptor* field,
                 std::set<const Descriptor*>* pending) {
  switch (field->type()) {
    case FieldDescriptor::TYPE_STRING:
      return {{"type", "string"}};
    case FieldDescriptor::TYPE_BYTES:
      return {{"type", "string"}, {"format", "byte"}};
    case FieldDescriptor::TYPE_BOOL:
      return {{"type", "boolean"}};
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_SINT32:
    case FieldDescriptor::TYPE_SFIXED32:
      return {{"type", "integer"}, {"format", "int32"}};
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_FIXED32:
      return {{"type", "integer"}, {"format", "int64"}, {"minimum", 0}};
    // 64-bit integers are decimal strings in proto3 JSON (numbers are
    // accepted on input too).
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SINT64:
    case FieldDescriptor::TYPE_SFIXED64:
      return {{"type", "string"}, {"format", "int64"}};
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_FIXED64:
      return {{"type", "string"}, {"format", "uint64"}};
    case FieldDescriptor::TYPE_DOUBLE:
      return {{"type", "number"}, {"format", "double"}};
    case FieldDescriptor::TYPE_FLOAT:
      return {{"type", "number"}, {"format", "float"}};
    case FieldDescriptor::TYPE_ENUM: {
      Json names = Json::array();
      for (int i = 0; i < field->enum_type()->value_count(); ++i) {
        names.push_back(field->enum_type()->value(i)->name());
      }
      return {{"type", "string"}, {"enum", names}};
    }
    case FieldDescriptor::TYPE_MESSAGE:
    case FieldDescriptor::TYPE_GROUP:
      pending->insert(field->message_type());
      return {{"$ref", RefOf(field->message_type())}};
  }
  return Json::object();
}

Json MessageSchema(const Descriptor* type,
                   std::set<const Descriptor*>* pending) {
  Json properties = Json::object();
  for (int i = 0; i < type->field_count(); ++i) {
    const FieldDescriptor* field = type->field(i);
    Json schema;
    if (field->is_map()) {
      schema = {{"type", "object"},
                {"additionalProperties",
                 ValueSchema(field->message_type()->map_value(), pending)}};
    } else if (field->is_repeated()) {
      schema = {{"type", "array"}, {"items", ValueSchema(field, pending)}};
    } else {
      schema = ValueSchema(field, pending);
    }
    if (field->options().deprecated()) {
      if (schema.contains("$ref")) {
        schema = {{"allOf", Json::array({schema})}};
      }
      schema["deprecated"] = true;
    }
    properties[field->json_name()] = std::move(schema);
  }
  Json schema = {{"type", "object"},
                 {"properties", std::move(properties)},
                 {"additionalProperties", false}};
  // Oneofs (not proto3 `optional`, whose oneof is synthetic): at most one
  // member may be set; JSON Schema draft 4 cannot say it simply.
  std::vector<std::string> oneofs;
  for (int i = 0; i < type->oneof_decl_count(); ++i) {
    const google::protobuf::OneofDescriptor* oneof = type->oneof_decl(i);
    if (oneof->field_count() == 1 && oneof->field(0)->has_optional_keyword()) {
      continue;
    }
    std::vector<std::string> members;
    for (int f = 0; f < oneof->field_count(); ++f) {
      members.push_back(oneof->field(f)->json_name());
    }
    oneofs.push_back(
        absl::StrCat("at most one of ", absl::StrJoin(members, ", ")));
  }
  schema["description"] = absl::StrCat(
      type->full_name(),
      oneofs.empty() ? ""
                     : absl::StrCat(" (", absl::StrJoin(oneofs, "; "), ")"),
      ". Field names are lowerCamelCase as answers write them; requests may "
      "also use the proto names.");
  return schema;
}

Json Content(std::string_view media, const Descriptor* type,
             std::set<const Descriptor*>* pending) {
  pending->insert(type);
  return {{std::string(media), {{"schema", {{"$ref", RefOf(type)}}}}}};
}

std::string OperationId(const Route& route) {
  return std::string(route.rpc.substr(route.rpc.rfind('.') + 1));
}

}  // namespace

absl::StatusOr<std::string> OpenApiJson() {
  std::set<const Descriptor*> pending;
  Json paths = Json::object();
  for (const Route& route : Routes()) {
    const google::protobuf::MethodDescriptor* method = FindRpc(route);
    if (method == nullptr) {
      return absl::InternalError(
          absl::StrCat("unknown RPC ", AbslView(route.rpc)));
    }
    const Descriptor* input = method->input_type();
    std::set<std::string> in_path;
    Json parameters = Json::array();
    for (absl::string_view segment :
         absl::StrSplit(AbslView(route.path), '/')) {
      if (segment.size() < 3 || segment.front() != '{') continue;
      const std::string name(segment.substr(1, segment.size() - 2));
      in_path.insert(name);
      parameters.push_back({{"name", name},
                            {"in", "path"},
                            {"required", true},
                            {"schema", {{"type", "string"}}}});
    }
    const bool has_body = route.verb == "POST" || route.verb == "PUT";
    if (!has_body) {
      // Query parameters: the request's scalar fields.
      for (int i = 0; i < input->field_count(); ++i) {
        const FieldDescriptor* field = input->field(i);
        if (in_path.contains(field->name()) ||
            field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
          continue;
        }
        Json schema = ValueSchema(field, &pending);
        if (field->is_repeated()) {
          schema = {{"type", "array"}, {"items", schema}};
        }
        parameters.push_back({{"name", field->name()},
                              {"in", "query"},
                              {"required", false},
                              {"schema", schema}});
      }
    }
    const bool streams_in = method->client_streaming();
    const bool streams_out = method->server_streaming();
    Json operation = {
        {"operationId", OperationId(route)},
        {"summary", std::string(route.summary)},
        {"tags", Json::array({std::string(method->service()->name())})},
    };
    if (!parameters.empty()) operation["parameters"] = parameters;
    if (has_body) {
      Json body = {{"required", !in_path.empty() ? false : true},
                   {"content", Content("application/json", input, &pending)}};
      if (streams_in) {
        body["required"] = true;
        body["content"] = Content("application/x-ndjson", input, &pending);
        body["description"] =
            absl::StrCat("NDJSON: one ", input->name(),
                         " per line (application/json is taken too)");
      }
      operation["requestBody"] = body;
    }
    Json ok = {
        {"description",
         streams_out
             ? absl::StrCat("NDJSON: one ", method->output_type()->name(),
                            " per line; a failure after the first "
                            "line is a last line {\"error\": Error}")
             : std::string("OK")},
        {"content",
         Content(streams_out ? "application/x-ndjson" : "application/json",
                 method->output_type(), &pending)},
    };
    operation["responses"] = {
        {"200", ok},
        {"default",
         {{"description", "An error: the gRPC status, mapped to HTTP"},
          {"content",
           {{"application/json",
             {{"schema", {{"$ref", "#/components/schemas/Error"}}}}}}}}}};
    std::string lower_verb(route.verb);
    for (char& c : lower_verb) c = static_cast<char>(std::tolower(c));
    paths[std::string(route.path)][lower_verb] = std::move(operation);
  }
  Json schemas = Json::object();
  std::set<const Descriptor*> done;
  while (!pending.empty()) {
    const Descriptor* type = *pending.begin();
    pending.erase(pending.begin());
    if (!done.insert(type).second) continue;
    schemas[type->full_name()] = MessageSchema(type, &pending);
  }
  Json sorted = Json::object();  // by name, whatever the discovery order
  std::vector<std::string> names;
  for (const auto& [name, schema] : schemas.items()) names.push_back(name);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) sorted[name] = schemas[name];
  sorted["Error"] = {
      {"type", "object"},
      {"required", Json::array({"code", "status", "message", "details"})},
      {"properties",
       {{"code", {{"type", "integer"}, {"description", "gRPC status code"}}},
        {"status", {{"type", "string"}}},
        {"message", {{"type", "string"}}},
        {"details", {{"type", "array"}, {"items", {{"type", "object"}}}}}}}};
  const Json document = {
      {"openapi", "3.0.3"},
      {"info",
       {{"title", "neardup"},
        {"version", std::string(kVersion)},
        {"description",
         "neardupd's HTTP/JSON API: each route calls one RPC of the gRPC "
         "API (proto/neardup/v1/neardup.proto) with protobuf's JSON mapping "
         "of its messages. docs/http.md describes it."}}},
      {"paths", paths},
      {"components",
       {{"schemas", sorted},
        {"securitySchemes",
         {{"bearer", {{"type", "http"}, {"scheme", "bearer"}}}}}}},
      {"security", Json::array({Json::object(), {{"bearer", Json::array()}}})},
  };
  return document.dump();
}

}  // namespace neardup::http
