// SiteNamer: which frame of an allocating stack names its site, and how that frame is written
// (docs/design.md, "Site names").
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "symbols/frame.h"

namespace memfloor::symbols {

// Path globs, matched with fnmatch(3) (`*` also matches `/`), that say which frames are the user's
// code. A frame is matched by its file, or by its module's path when it has no file. A pattern with
// a `/` is matched against the whole path, one without against the path's last component.
struct SitePatterns {
  // The user's code even where an exclude pattern matches.
  std::vector<std::string> include{};
  // Not the user's code, on top of SiteNamer::defaultExcludes().
  std::vector<std::string> exclude{};
};

// Names the stacks that one report lists. A stack's user frames are the frames in the user's code
// (not excluded, or included), innermost first. Stacks are grouped by their innermost user frame;
// within a group of distinct stacks, the innermost user frames they all share (an allocator
// wrapper of the user's own) are skipped, keeping at least one: each stack's user line is its
// first user frame that not every stack of its group shares. A stack whose innermost Python frame
// is not the user's (a library's, or a compiled graph's) is named by that frame, with its user line
// beside it: "transformers/models/gpt2/modeling_gpt2.py:185 in GPT2Attention.forward <- train.py:25
// in <module>". A stack without Python frames is named by its user line; without a user frame, by
// the autograd node whose backward it runs ("MmBackward0"), else as before user frames were told
// apart: by its first frame, of all its frames, that not every such stack shares. A stack whose
// native frames pass through NCCL or cuBLAS below the first native user frame is that library's:
// its name is "libnccl.so.2 via <the name above>".
class SiteNamer {
 public:
  // Throws memfloor::Error for an empty pattern.
  explicit SiteNamer(SitePatterns patterns = {});

  // Libraries, interpreters and their standard libraries: CUDA's, PyTorch's, Python's and the
  // system's (docs/design.md lists them).
  static const std::vector<std::string_view>& defaultExcludes();

  bool isUserFrame(const Frame& frame) const;

  // One name per stack, in order (unknown stacks count as empty: "(empty stack)").
  std::vector<std::string> name(const std::vector<Stack>& stacks) const;

  // What the code torch.compile generated in `file` was compiled from ("TransformerEncoder", "step
  // backward"), as the companion learned it (trace property "python.compiled:<file>"): its frames
  // are written "<compiled TransformerEncoder>:873 in Runner.call".
  void nameCompiled(std::string file, std::string name);

  // "file:line in function" (native functions without parameters or template arguments), "file
  // in function" without a line, "function" without a file, "file:line" without a function, and
  // "module+0xoffset" (the module's file name) for a frame that was not resolved. A Python file of
  // an installed package or the standard library is written from its package root
  // ("transformers/trainer.py"), one that torch.compile generated as "<compiled graph>", or as
  // "<compiled `compiled`>" when what it was compiled from is known.
  static std::string write(const Frame& frame, std::string_view compiled = {});

 private:
  std::string writeFrame(const Frame& frame) const;  // write, with the compiled graphs' names
  void nameGroup(const std::vector<size_t>& members,
                 const std::vector<std::vector<const Frame*>>& frames,
                 std::vector<std::string>& names) const;

  SitePatterns patterns_;
  std::map<std::string, std::string, std::less<>> compiled_;  // generated file's name -> source
};

}  // namespace memfloor::symbols
