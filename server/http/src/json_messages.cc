#include "neardup/http/json_messages.h"

#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"
#include "neardup/base/absl_compat.h"
#include "neardup/http/routes.h"
#include "nlohmann/json.hpp"

namespace neardup::http {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

const FieldDescriptor* FindField(const Message& message,
                                 std::string_view name) {
  const google::protobuf::Descriptor* type = message.GetDescriptor();
  const std::string key(name);
  if (const FieldDescriptor* field = type->FindFieldByName(key)) return field;
  for (int i = 0; i < type->field_count(); ++i) {
    if (type->field(i)->json_name() == key) return type->field(i);
  }
  return nullptr;
}

bool IsSet(const Message& message, const FieldDescriptor* field) {
  const Reflection* reflection = message.GetReflection();
  return field->is_repeated() ? reflection->FieldSize(message, field) > 0
                              : reflection->HasField(message, field);
}

// Sets string field `field` of `message` to `value`, unless it holds
// another value already.
absl::Status SetPathField(const FieldDescriptor* field,
                          const std::string& value, Message* message) {
  const Reflection* reflection = message->GetReflection();
  const std::string current = reflection->GetString(*message, field);
  if (!current.empty() && current != value) {
    return absl::InvalidArgumentError(
        absl::StrCat(field->name(), " is \"", value, "\" in the path but \"",
                     current, "\" in the body: leave it out of the body"));
  }
  reflection->SetString(message, field, value);
  return absl::OkStatus();
}

absl::StatusOr<std::string> QueryDecode(std::string_view text) {
  std::string spaced(text);
  for (char& c : spaced) {
    if (c == '+') c = ' ';
  }
  return PercentDecode(spaced);
}

// A query parameter's value as JSON for proto3's parser, which takes
// numbers and enums as strings too.
absl::StatusOr<nlohmann::json> QueryValue(const FieldDescriptor* field,
                                          const std::string& value) {
  if (field->cpp_type() == FieldDescriptor::CPPTYPE_BOOL) {
    const std::string lower = absl::AsciiStrToLower(value);
    if (lower == "true" || lower == "1" || lower.empty()) return true;
    if (lower == "false" || lower == "0") return false;
    return absl::InvalidArgumentError(
        absl::StrCat("query parameter ", field->name(), "=", value,
                     " is not a boolean (true or false)"));
  }
  return nlohmann::json(value);
}

}  // namespace

absl::Status MergeJson(std::string_view json, Message* message) {
  if (absl::StripAsciiWhitespace(AbslView(json)).empty()) {
    return absl::OkStatus();
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  std::unique_ptr<Message> parsed(message->New());
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), parsed.get(),
      options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a JSON ", message->GetDescriptor()->name(), ": ",
                     std::string(status.message())));
  }
  message->MergeFrom(*parsed);
  return absl::OkStatus();
}

absl::Status ApplyPathFields(const PathFields& fields, Message* message) {
  for (const auto& [name, value] : fields) {
    const FieldDescriptor* field = FindField(*message, name);
    if (field != nullptr && !field->is_repeated() &&
        field->type() == FieldDescriptor::TYPE_STRING) {
      if (absl::Status set = SetPathField(field, value, message); !set.ok()) {
        return set;
      }
      continue;
    }
    // The field of each element: a BulkUpsertRequest's items.
    bool applied = false;
    const Reflection* reflection = message->GetReflection();
    const google::protobuf::Descriptor* type = message->GetDescriptor();
    for (int i = 0; i < type->field_count(); ++i) {
      const FieldDescriptor* list = type->field(i);
      if (!list->is_repeated() || list->is_map() ||
          list->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
        continue;
      }
      const FieldDescriptor* inner =
          list->message_type()->FindFieldByName(name);
      if (inner == nullptr || inner->is_repeated() ||
          inner->type() != FieldDescriptor::TYPE_STRING) {
        continue;
      }
      applied = true;
      for (int j = 0; j < reflection->FieldSize(*message, list); ++j) {
        Message* element = reflection->MutableRepeatedMessage(message, list, j);
        if (absl::Status set = SetPathField(inner, value, element); !set.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat(list->name(), "[", j, "]: ", set.message()));
        }
      }
    }
    if (!applied) {
      return absl::InternalError(
          absl::StrCat("route field {", name, "} is not a string field of ",
                       message->GetDescriptor()->full_name()));
    }
  }
  return absl::OkStatus();
}

absl::Status ApplyQueryString(std::string_view query, Message* message) {
  if (query.empty()) return absl::OkStatus();
  nlohmann::json object = nlohmann::json::object();
  for (absl::string_view piece :
       absl::StrSplit(AbslView(query), '&', absl::SkipEmpty())) {
    const std::string_view pair = StdView(piece);
    const size_t equals = pair.find('=');
    absl::StatusOr<std::string> name = QueryDecode(pair.substr(0, equals));
    if (!name.ok()) return name.status();
    absl::StatusOr<std::string> value = QueryDecode(
        equals == std::string_view::npos ? "" : pair.substr(equals + 1));
    if (!value.ok()) return value.status();
    const FieldDescriptor* field = FindField(*message, *name);
    if (field == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown query parameter \"", *name,
          "\": ", message->GetDescriptor()->name(), " has no such field"));
    }
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      return absl::InvalidArgumentError(
          absl::StrCat("query parameter ", *name,
                       " is a message: send it in a JSON body (POST) instead"));
    }
    if (IsSet(*message, field)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "query parameter ", *name, " is also in the body: give it once"));
    }
    absl::StatusOr<nlohmann::json> json = QueryValue(field, *value);
    if (!json.ok()) return json.status();
    nlohmann::json& slot = object[field->name()];
    if (field->is_repeated()) {
      slot.push_back(*std::move(json));
    } else if (!slot.is_null()) {
      return absl::InvalidArgumentError(
          absl::StrCat("query parameter ", *name, " is given twice"));
    } else {
      slot = *std::move(json);
    }
  }
  std::string json;
  try {
    json = object.dump();
  } catch (const nlohmann::json::exception&) {
    return absl::InvalidArgumentError(
        "a query parameter is not UTF-8 once percent-decoded");
  }
  return MergeJson(json, message);
}

std::string ToJson(const Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  std::string json;
  // Serializing a valid message cannot fail.
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

}  // namespace neardup::http
