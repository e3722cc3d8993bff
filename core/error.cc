#include "core/error.h"

#include <cstdlib>
#include <optional>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "core/access_error_codes.h"
#include "core/function_error_codes.h"
#include "core/keeper_error_codes.h"
#include "core/schema_error_codes.h"

namespace granite::core {
namespace {

constexpr char kPayloadUrl[] = "granite/error_code";

absl::StatusCode CanonicalFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return absl::StatusCode::kOk;
    case ErrorCode::kUnknownTable:
    case ErrorCode::kUnknownIdentifier:
    case ErrorCode::kUnknownFunction:
    case ErrorCode::kNoSuchColumnInTable: return absl::StatusCode::kNotFound;
    case ErrorCode::kTableAlreadyExists: return absl::StatusCode::kAlreadyExists;
    case ErrorCode::kTimeoutExceeded: return absl::StatusCode::kDeadlineExceeded;
    case ErrorCode::kQueryWasCancelled: return absl::StatusCode::kCancelled;
    case ErrorCode::kAllConnectionTriesFailed: return absl::StatusCode::kUnavailable;
    case ErrorCode::kMemoryLimitExceeded:
    case ErrorCode::kTooManySimultaneousQueries: return absl::StatusCode::kResourceExhausted;
    case ErrorCode::kLogicalError: return absl::StatusCode::kInternal;
    case ErrorCode::kNotImplemented: return absl::StatusCode::kUnimplemented;
    case ErrorCode::kChecksumDoesntMatch:
    case ErrorCode::kCorruptedData: return absl::StatusCode::kDataLoss;
    case ErrorCode::kAuthenticationFailed: return absl::StatusCode::kUnauthenticated;
    case ErrorCode::kReadonly:
    case ErrorCode::kAccessDenied: return absl::StatusCode::kPermissionDenied;
    default: return absl::StatusCode::kInvalidArgument;
  }
}

}  // namespace

absl::Status Error(ErrorCode code, std::string_view message) {
  absl::Status status(CanonicalFor(code), absl::string_view(message.data(), message.size()));
  status.SetPayload(kPayloadUrl, absl::Cord(std::to_string(static_cast<int>(code))));
  return status;
}

ErrorCode CodeOf(const absl::Status& status) {
  if (status.ok()) return ErrorCode::kOk;
  auto payload = status.GetPayload(kPayloadUrl);
  int value = 0;
  if (payload && absl::SimpleAtoi(std::string(*payload), &value)) return static_cast<ErrorCode>(value);
  switch (status.code()) {
    case absl::StatusCode::kDeadlineExceeded: return ErrorCode::kTimeoutExceeded;
    case absl::StatusCode::kCancelled: return ErrorCode::kQueryWasCancelled;
    case absl::StatusCode::kUnavailable: return ErrorCode::kAllConnectionTriesFailed;
    case absl::StatusCode::kResourceExhausted: return ErrorCode::kMemoryLimitExceeded;
    case absl::StatusCode::kUnimplemented: return ErrorCode::kNotImplemented;
    case absl::StatusCode::kDataLoss: return ErrorCode::kCorruptedData;
    case absl::StatusCode::kUnauthenticated: return ErrorCode::kAuthenticationFailed;
    case absl::StatusCode::kPermissionDenied: return ErrorCode::kAccessDenied;
    case absl::StatusCode::kInvalidArgument: return ErrorCode::kBadArguments;
    default: return ErrorCode::kLogicalError;
  }
}

std::string_view ErrorName(ErrorCode code) {
  // The codes of core/function_error_codes.h.
  if (code == kAggregateFunctionDoesntAllowParameters) {
    return "AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS";
  }
  if (code == kParameterOutOfBound) return "PARAMETER_OUT_OF_BOUND";
  if (code == kFunctionThrowIfValueIsNonZero) return "FUNCTION_THROW_IF_VALUE_IS_NON_ZERO";
  if (code == kSizesOfArraysDontMatch) return "SIZES_OF_ARRAYS_DONT_MATCH";
  if (code == kCannotParseIpv4) return "CANNOT_PARSE_IPV4";
  if (code == kCannotParseDatetime) return "CANNOT_PARSE_DATETIME";
  if (code == kInvalidWithFillExpression) return "INVALID_WITH_FILL_EXPRESSION";
  // The codes of core/schema_error_codes.h.
  if (code == kNotFoundColumnInBlock) return "NOT_FOUND_COLUMN_IN_BLOCK";
  if (code == kCyclicAliases) return "CYCLIC_ALIASES";
  if (code == kAlterOfColumnIsForbidden) return "ALTER_OF_COLUMN_IS_FORBIDDEN";
  if (code == kEmptyDataPassed) return "EMPTY_DATA_PASSED";
  if (code == kUnknownElementOfEnum) return "UNKNOWN_ELEMENT_OF_ENUM";
  if (code == kKeeperException) return "KEEPER_EXCEPTION";
  if (code == kSetNonGrantedRole) return "SET_NON_GRANTED_ROLE";
  switch (code) {
    case ErrorCode::kOk: return "OK";
    case ErrorCode::kNotImplemented: return "NOT_IMPLEMENTED";
    case ErrorCode::kLogicalError: return "LOGICAL_ERROR";
    case ErrorCode::kIllegalTypeOfArgument: return "ILLEGAL_TYPE_OF_ARGUMENT";
    case ErrorCode::kUnknownFunction: return "UNKNOWN_FUNCTION";
    case ErrorCode::kUnknownIdentifier: return "UNKNOWN_IDENTIFIER";
    case ErrorCode::kNumberOfArgumentsDoesntMatch: return "NUMBER_OF_ARGUMENTS_DOESNT_MATCH";
    case ErrorCode::kIllegalColumn: return "ILLEGAL_COLUMN";
    case ErrorCode::kCannotParseText: return "CANNOT_PARSE_TEXT";
    case ErrorCode::kCannotParseInputAssertionFailed: return "CANNOT_PARSE_INPUT_ASSERTION_FAILED";
    case ErrorCode::kTypeMismatch: return "TYPE_MISMATCH";
    case ErrorCode::kUnknownTable: return "UNKNOWN_TABLE";
    case ErrorCode::kSyntaxError: return "SYNTAX_ERROR";
    case ErrorCode::kUnknownAggregateFunction: return "UNKNOWN_AGGREGATE_FUNCTION";
    case ErrorCode::kTableAlreadyExists: return "TABLE_ALREADY_EXISTS";
    case ErrorCode::kUnknownType: return "UNKNOWN_TYPE";
    case ErrorCode::kUnknownFormat: return "UNKNOWN_FORMAT";
    case ErrorCode::kIllegalDivision: return "ILLEGAL_DIVISION";
    case ErrorCode::kTimeoutExceeded: return "TIMEOUT_EXCEEDED";
    case ErrorCode::kTooManyColumns: return "TOO_MANY_COLUMNS";
    case ErrorCode::kLimitExceeded: return "LIMIT_EXCEEDED";
    case ErrorCode::kNotAnAggregate: return "NOT_AN_AGGREGATE";
    case ErrorCode::kQueryWithSameIdIsAlreadyRunning:
      return "QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING";
    case ErrorCode::kMemoryLimitExceeded: return "MEMORY_LIMIT_EXCEEDED";
    case ErrorCode::kChecksumDoesntMatch: return "CHECKSUM_DOESNT_MATCH";
    case ErrorCode::kCorruptedData: return "CORRUPTED_DATA";
    case ErrorCode::kCannotInsertNullInOrdinaryColumn: return "CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN";
    case ErrorCode::kUnknownSetting: return "UNKNOWN_SETTING";
    case ErrorCode::kSessionNotFound: return "SESSION_NOT_FOUND";
    case ErrorCode::kQueryWasCancelled: return "QUERY_WAS_CANCELLED";
    case ErrorCode::kTooManySimultaneousQueries: return "TOO_MANY_SIMULTANEOUS_QUERIES";
    case ErrorCode::kAllConnectionTriesFailed: return "ALL_CONNECTION_TRIES_FAILED";
    case ErrorCode::kTooFewLiveReplicas: return "TOO_FEW_LIVE_REPLICAS";
    case ErrorCode::kUnknownStatusOfInsert: return "UNKNOWN_STATUS_OF_INSERT";
    case ErrorCode::kAuthenticationFailed: return "AUTHENTICATION_FAILED";
    case ErrorCode::kCannotWriteToFile: return "CANNOT_WRITE_TO_FILE_DESCRIPTOR";
    case ErrorCode::kCannotReadFromFile: return "CANNOT_READ_FROM_FILE_DESCRIPTOR";
    case ErrorCode::kBadArguments: return "BAD_ARGUMENTS";
    case ErrorCode::kDataTypeCannotHaveArguments: return "DATA_TYPE_CANNOT_HAVE_ARGUMENTS";
    case ErrorCode::kIllegalSyntaxForCodecType: return "ILLEGAL_SYNTAX_FOR_CODEC_TYPE";
    case ErrorCode::kUnknownCodec: return "UNKNOWN_CODEC";
    case ErrorCode::kIllegalCodecParameter: return "ILLEGAL_CODEC_PARAMETER";
    case ErrorCode::kNetworkError: return "NETWORK_ERROR";
    case ErrorCode::kIllegalAggregation: return "ILLEGAL_AGGREGATION";
    case ErrorCode::kNumberOfColumnsDoesntMatch: return "NUMBER_OF_COLUMNS_DOESNT_MATCH";
    case ErrorCode::kIncorrectElementOfSet: return "INCORRECT_ELEMENT_OF_SET";
    case ErrorCode::kEmptyListOfColumnsPassed: return "EMPTY_LIST_OF_COLUMNS_PASSED";
    case ErrorCode::kDuplicateColumn: return "DUPLICATE_COLUMN";
    case ErrorCode::kNoSuchColumnInTable: return "NO_SUCH_COLUMN_IN_TABLE";
    case ErrorCode::kArgumentOutOfBound: return "ARGUMENT_OUT_OF_BOUND";
    case ErrorCode::kDecimalOverflow: return "DECIMAL_OVERFLOW";
    case ErrorCode::kCannotConvertType: return "CANNOT_CONVERT_TYPE";
    case ErrorCode::kValueIsOutOfRangeOfDataType: return "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE";
    case ErrorCode::kIncorrectData: return "INCORRECT_DATA";
    case ErrorCode::kNoSuchDataPart: return "NO_SUCH_DATA_PART";
    case ErrorCode::kBadDataPartName: return "BAD_DATA_PART_NAME";
    case ErrorCode::kSupportIsDisabled: return "SUPPORT_IS_DISABLED";
    case ErrorCode::kIncorrectFileName: return "INCORRECT_FILE_NAME";
    case ErrorCode::kUnknownDatabase: return "UNKNOWN_DATABASE";
    case ErrorCode::kDatabaseAlreadyExists: return "DATABASE_ALREADY_EXISTS";
    case ErrorCode::kDatabaseAccessDenied: return "DATABASE_ACCESS_DENIED";
    case ErrorCode::kUnknownQueryParameter: return "UNKNOWN_QUERY_PARAMETER";
    case ErrorCode::kBadQueryParameter: return "BAD_QUERY_PARAMETER";
    case ErrorCode::kUnknownCompressionMethod: return "UNKNOWN_COMPRESSION_METHOD";
    case ErrorCode::kCannotDecompress: return "CANNOT_DECOMPRESS";
    case ErrorCode::kHttpLengthRequired: return "HTTP_LENGTH_REQUIRED";
    case ErrorCode::kTooManyRows: return "TOO_MANY_ROWS";
    case ErrorCode::kTooManyBytes: return "TOO_MANY_BYTES";
    case ErrorCode::kTooManyRowsOrBytes: return "TOO_MANY_ROWS_OR_BYTES";
    case ErrorCode::kSetSizeLimitExceeded: return "SET_SIZE_LIMIT_EXCEEDED";
    case ErrorCode::kTooDeepRecursion: return "TOO_DEEP_RECURSION";
    case ErrorCode::kTooDeepAst: return "TOO_DEEP_AST";
    case ErrorCode::kReadonly: return "READONLY";
    case ErrorCode::kSettingConstraintViolation: return "SETTING_CONSTRAINT_VIOLATION";
    case ErrorCode::kAccessDenied: return "ACCESS_DENIED";
    case ErrorCode::kQuotaExceeded: return "QUOTA_EXCEEDED";
    case ErrorCode::kUnknownUser: return "UNKNOWN_USER";
    case ErrorCode::kAccessEntityNotFound: return "ACCESS_ENTITY_NOT_FOUND";
    case ErrorCode::kAccessEntityAlreadyExists: return "ACCESS_ENTITY_ALREADY_EXISTS";
    case ErrorCode::kTooLargeStringSize: return "TOO_LARGE_STRING_SIZE";
    case ErrorCode::kCannotParseUuid: return "CANNOT_PARSE_UUID";
    case ErrorCode::kCannotParseDatetime: return "CANNOT_PARSE_DATETIME";
    case ErrorCode::kCannotParseBool: return "CANNOT_PARSE_BOOL";
    case ErrorCode::kAmbiguousIdentifier: return "AMBIGUOUS_IDENTIFIER";
    case ErrorCode::kIncorrectResultOfScalarSubquery: return "INCORRECT_RESULT_OF_SCALAR_SUBQUERY";
    case ErrorCode::kInvalidJoinOnExpression: return "INVALID_JOIN_ON_EXPRESSION";
    case ErrorCode::kNoCommonType: return "NO_COMMON_TYPE";
    case ErrorCode::kUnionAllResultStructuresMismatch: return "UNION_ALL_RESULT_STRUCTURES_MISMATCH";
    case ErrorCode::kExpectedAllOrDistinct: return "EXPECTED_ALL_OR_DISTINCT";
    case ErrorCode::kUnsupportedMethod: return "UNSUPPORTED_METHOD";
  }
  return "UNKNOWN_EXCEPTION";
}

}  // namespace granite::core
