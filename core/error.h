// ClickHouse-compatible error codes carried inside absl::Status, so that every layer returns a plain
// Status and the RPC boundary turns it into Result.exception {code, name, display_text}.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace granite::core {

enum class ErrorCode : int {
  kOk = 0,
  kNotImplemented = 48,
  kLogicalError = 49,
  kIllegalTypeOfArgument = 43,
  kUnknownFunction = 46,
  kUnknownIdentifier = 47,
  kNumberOfArgumentsDoesntMatch = 42,
  kIllegalColumn = 44,
  kCannotParseText = 6,
  kCannotParseInputAssertionFailed = 27,
  kTypeMismatch = 53,
  kUnknownTable = 60,
  kSyntaxError = 62,
  kUnknownAggregateFunction = 63,
  kTableAlreadyExists = 57,
  kUnknownType = 50,
  kUnknownFormat = 73,
  kIllegalDivision = 153,
  kTimeoutExceeded = 159,
  kTooManyColumns = 161,
  kLimitExceeded = 290,
  kNotAnAggregate = 215,
  kQueryWithSameIdIsAlreadyRunning = 216,
  kMemoryLimitExceeded = 241,
  kChecksumDoesntMatch = 40,
  kCorruptedData = 246,
  kUnknownSetting = 115,
  kSessionNotFound = 372,
  kQueryWasCancelled = 394,
  kTooManySimultaneousQueries = 202,
  kAllConnectionTriesFailed = 279,
  kTooFewLiveReplicas = 285,
  kUnknownStatusOfInsert = 319,
  kAuthenticationFailed = 516,
  kCannotWriteToFile = 76,
  kCannotReadFromFile = 75,
  kBadArguments = 36,
  kIllegalAggregation = 184,
  kNumberOfColumnsDoesntMatch = 20,
  kIncorrectElementOfSet = 124,
  kEmptyListOfColumnsPassed = 51,
  kDuplicateColumn = 15,
  kNoSuchColumnInTable = 16,
  kArgumentOutOfBound = 69,
  kValueIsOutOfRangeOfDataType = 321,
  kIncorrectData = 117,
  kNoSuchDataPart = 232,
  kBadDataPartName = 233,
  kSupportIsDisabled = 344,
  kIncorrectFileName = 79,
  kUnknownDatabase = 81,
  kUnknownCompressionMethod = 89,
  kCannotDecompress = 271,
  kHttpLengthRequired = 381,
  kTooManyRows = 158,
  kTooManyBytes = 307,
  kTooManyRowsOrBytes = 396,
  kSetSizeLimitExceeded = 191,
  kTooDeepRecursion = 306,
  kTooDeepAst = 167,
  kReadonly = 164,
  kSettingConstraintViolation = 452,
  kAccessDenied = 497,
  kQuotaExceeded = 201,
  kDecimalOverflow = 407,
  kCannotConvertType = 70,
  kDatabaseAlreadyExists = 82,
  kDatabaseAccessDenied = 291,
  kUnknownQueryParameter = 456,
  kBadQueryParameter = 457,
  kAmbiguousIdentifier = 207,
  kIncorrectResultOfScalarSubquery = 125,
  kInvalidJoinOnExpression = 403,
  kCannotInsertNullInOrdinaryColumn = 349,
  kNoCommonType = 386,
  kUnionAllResultStructuresMismatch = 258,
  kExpectedAllOrDistinct = 558,
  kUnsupportedMethod = 1,
  kDataTypeCannotHaveArguments = 378,
  kIllegalSyntaxForCodecType = 431,
  kUnknownCodec = 432,
  kIllegalCodecParameter = 433,
  kNetworkError = 210,
  kUnknownUser = 192,
  kAccessEntityNotFound = 492,
  kAccessEntityAlreadyExists = 493,
  kTooLargeStringSize = 131,
  kCannotParseUuid = 376,
  kCannotParseDatetime = 41,
  kCannotParseBool = 467,
};

// Returns a Status carrying `code` and `message` ("what went wrong: the values").
absl::Status Error(ErrorCode code, std::string_view message);

// Returns the ClickHouse code carried by `status`; statuses made elsewhere map by canonical code.
ErrorCode CodeOf(const absl::Status& status);

// Returns the ClickHouse name of `code`, e.g. "SYNTAX_ERROR".
std::string_view ErrorName(ErrorCode code);

}  // namespace granite::core
