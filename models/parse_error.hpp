#pragma once
// models::ParseError: a user's file (an NCCL log, nccl-tests output, a job YAML) does not parse.
// It carries the place (file, 1-based line and column) so the command prints the one line
// "FILE:LINE:COL: message" the error contract asks for (docs/design.md, "Errors"); file name and
// message are kept on that one line (one_line.hpp), whatever they quote.
#include <stdexcept>
#include <string>

#include "models/one_line.hpp"

namespace models {

class ParseError : public std::runtime_error {
 public:
  ParseError(std::string file, int line, int col, const std::string& message)
      : std::runtime_error(one_line(file) + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " +
                           one_line(message)),
        file_(std::move(file)),
        line_(line),
        col_(col),
        message_(one_line(message)) {}
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int col() const { return col_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  int col_;
  std::string message_;
};

}  // namespace models
