// SPDX-License-Identifier: Apache-2.0
#pragma once
// A problem the user fixes by choosing an option, reported by the core in its own words and
// worded for the user by each front-end: the CLI says "Pass --text_a_column=NAME", the window
// names its field ("Type the column's name into “Text column”"). The core never writes a
// front-end's wording into these (docs/architecture.md, "Adding an option").

#include "core/util/error.h"

#include <string>
#include <vector>

namespace wb {

/// One way to fix a FieldProblem: give `option` (a flag name of a command table,
/// core/config/commandoptions.h) the value `value`.
struct OptionFix
{
    std::string option;  ///< "text_a_column"
    std::string value;   ///< a value to give ("tsv"), or a placeholder in capitals for the user's own ("NAME")
    std::string purpose; ///< plain words after the fix ("for sentence pairs", "with one of the columns found"); may be empty
};

/// What is wrong and which options fix it. A plain value.
struct FieldProblem
{
    std::string message;          ///< what is wrong, one sentence, no front-end's wording
    std::string reason;           ///< why the fix is suggested ("the file looks tab-separated"); may be empty
    std::vector<OptionFix> fixes; ///< the fix first, then options to give with it (a pair's second column)
    std::string recognised;       ///< values found without the option ("label, labels, class"); may be empty
    /// Plain advice that the fixes are alternatives to ("Fix the label"); when set, each fix is
    /// another way out ("…, or pass --skip_bad_rows to skip such rows"). May be empty.
    std::string advice;

    /// The fix in plain words, for a front-end that does not word it itself:
    /// "Give text_a_column a value (NAME), and text_b_column for sentence pairs. Recognised
    /// without it: …". Pure.
    std::string plainHint() const;
};

/// A wb::Error that carries its FieldProblem: what() is the message, hint() plainHint().
/// Front-ends catch it before wb::Error to word the fix in their own terms.
class FieldError : public Error
{
public:
    FieldError(std::string field, FieldProblem problem)
        : Error(std::move(field), problem.message, problem.plainHint()), m_problem(std::move(problem))
    {
    }
    const FieldProblem &problem() const noexcept { return m_problem; }

private:
    FieldProblem m_problem;
};

/// One bad row of the input: where it is and what is wrong with it (FieldProblem::message),
/// with its fixes.
struct RowProblem
{
    std::string where; ///< "<file>:<line>"
    FieldProblem problem;
};

/// Several bad rows at once (prepare without skip_bad_rows): what() names the first and lists
/// the others ("…; 2 more bad rows: a.csv:4: …; a.csv:6: …"), hint() their distinct plain
/// hints; rows() holds every one for a front-end to list and word itself.
class BadRowsError : public Error
{
public:
    BadRowsError(std::string field, const std::string &message, std::string hint, std::vector<RowProblem> rows,
                 size_t total)
        : Error(std::move(field), message, std::move(hint)), m_rows(std::move(rows)), m_total(total)
    {
    }
    const std::vector<RowProblem> &rows() const noexcept { return m_rows; }
    /// Every bad row found (rows().size()).
    size_t total() const noexcept { return m_total; }

private:
    std::vector<RowProblem> m_rows;
    size_t m_total = 0;
};

} // namespace wb
