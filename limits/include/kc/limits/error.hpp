// Errors of gate 5's readers. Every message names the file (or image) it is about, so a bad binary
// in a directory of many is found at once.
#pragma once
#include <stdexcept>
#include <string>

namespace kc::limits {

class FormatError : public std::runtime_error {
 public:
  FormatError(const std::string& file, const std::string& what)
      : std::runtime_error(file + ": " + what), file_(file) {}
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

}  // namespace kc::limits
