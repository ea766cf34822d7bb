// parse_ideas: the optimisation ideas of a brainstorm answer, from its last ```json block, or why there are none.
#include "kernelgen/optimise/ideas.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kernelgen {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string json_block(const std::string& body) { return "```json\n" + body + "\n```\n"; }

TEST(ParseIdeas, ReadsAnArrayOfStrings) {
  const IdeaList list = parse_ideas("Here are my ideas:\n\n" +
                                    json_block(R"(["use vec4 loads", "unroll the inner loop by 4"])") +
                                    "\nGood luck.");
  EXPECT_TRUE(list.ok) << list.error;
  EXPECT_THAT(list.ideas, ElementsAre("use vec4 loads", "unroll the inner loop by 4"));
  EXPECT_THAT(list.error, IsEmpty());
}

TEST(ParseIdeas, ReadsObjectsByTheirIdeaField) {
  const IdeaList list = parse_ideas(json_block(R"([
    {"idea": "tile the matrix in shared memory", "why": "reuse", "expected_speedup": 3},
    {"title": "ignored", "idea": "use subgroup adds"}
  ])"));
  EXPECT_TRUE(list.ok) << list.error;
  EXPECT_THAT(list.ideas, ElementsAre("tile the matrix in shared memory", "use subgroup adds"));
}

TEST(ParseIdeas, ReadsAMixOfStringsAndObjectsInOrder) {
  const IdeaList list = parse_ideas(json_block(R"(["first", {"idea": "second"}, "third"])"));
  EXPECT_TRUE(list.ok) << list.error;
  EXPECT_THAT(list.ideas, ElementsAre("first", "second", "third"));
}

TEST(ParseIdeas, TheLastJsonBlockWins) {
  const IdeaList list = parse_ideas("First thoughts:\n" + json_block(R"(["draft idea"])") +
                                    "On reflection:\n" + json_block(R"(["revised idea", "another"])") +
                                    "And the current kernel for reference:\n```glsl\nvoid main() {}\n```\n");
  EXPECT_TRUE(list.ok) << list.error;
  EXPECT_THAT(list.ideas, ElementsAre("revised idea", "another"));
}

TEST(ParseIdeas, TheInfoStringIsReadCaseInsensitively) {
  const IdeaList list = parse_ideas("```JSON\n[\"shout\"]\n```\n");
  EXPECT_TRUE(list.ok) << list.error;
  EXPECT_THAT(list.ideas, ElementsAre("shout"));
}

TEST(ParseIdeas, NoJsonBlockIsAFailureSayingSo) {
  for (const std::string& answer : {std::string("I would use vec4 loads and unroll the loop."),
                                    std::string("```\n[\"untagged\"]\n```\n"),
                                    std::string("```python\n[\"wrong tag\"]\n```\n"), std::string()}) {
    const IdeaList list = parse_ideas(answer);
    EXPECT_FALSE(list.ok) << answer;
    EXPECT_THAT(list.ideas, IsEmpty()) << answer;
    EXPECT_THAT(list.error, HasSubstr("no ```json block")) << answer;
  }
}

TEST(ParseIdeas, AnUnclosedBlockIsAFailureSayingTheAnswerWasCutOff) {
  const IdeaList list = parse_ideas("```json\n[\"use vec4 loads\", \"unroll");
  EXPECT_FALSE(list.ok);
  EXPECT_THAT(list.ideas, IsEmpty());
  EXPECT_THAT(list.error, HasSubstr("not closed"));
  EXPECT_THAT(list.error, HasSubstr("cut off"));
}

TEST(ParseIdeas, InvalidJsonIsAFailureSayingSo) {
  const IdeaList list = parse_ideas(json_block(R"(["use vec4 loads", "unroll",])"));
  EXPECT_FALSE(list.ok);
  EXPECT_THAT(list.ideas, IsEmpty());
  EXPECT_THAT(list.error, HasSubstr("not valid JSON"));
}

TEST(ParseIdeas, AJsonValueThatIsNotAnArrayIsAFailureNamingItsType) {
  {
    const IdeaList list = parse_ideas(json_block(R"({"ideas": ["use vec4 loads"]})"));
    EXPECT_FALSE(list.ok);
    EXPECT_THAT(list.error, HasSubstr("holds object, not an array"));
  }
  {
    const IdeaList list = parse_ideas(json_block(R"("use vec4 loads")"));
    EXPECT_FALSE(list.ok);
    EXPECT_THAT(list.error, HasSubstr("holds string, not an array"));
  }
}

TEST(ParseIdeas, AnEmptyArrayIsAFailure) {
  const IdeaList list = parse_ideas(json_block("[]"));
  EXPECT_FALSE(list.ok);
  EXPECT_THAT(list.ideas, IsEmpty());
  EXPECT_THAT(list.error, HasSubstr("empty"));
}

TEST(ParseIdeas, AnItemWithoutTextIsAFailureNamingItsIndex) {
  const struct {
    const char* body;
    const char* index;
  } cases[] = {
      {R"([{"title": "no idea field"}])", "idea 0 "},
      {R"(["fine", {"idea": 42}])", "idea 1 "},
      {R"(["fine", "also fine", 7])", "idea 2 "},
      {R"(["fine", null])", "idea 1 "},
      {R"([["nested"]])", "idea 0 "},
  };
  for (const auto& c : cases) {
    const IdeaList list = parse_ideas(json_block(c.body));
    EXPECT_FALSE(list.ok) << c.body;
    EXPECT_THAT(list.error, HasSubstr(c.index)) << c.body;
    EXPECT_THAT(list.error, HasSubstr("neither a non-empty string nor an object with an \"idea\" string")) << c.body;
  }
}

TEST(ParseIdeas, ABlankIdeaIsAFailureNamingItsIndex) {
  for (const char* body : {R"(["fine", "   "])", R"(["fine", ""])", R"(["fine", {"idea": " \n\t "}])"}) {
    const IdeaList list = parse_ideas(json_block(body));
    EXPECT_FALSE(list.ok) << body;
    EXPECT_THAT(list.error, HasSubstr("idea 1 ")) << body;
  }
}

TEST(ParseIdeas, AFailureInALaterBlockIsNotRescuedByAnEarlierGoodOne) {
  // The last block is the model's final answer: when it is broken, the earlier draft is not used instead.
  const IdeaList list = parse_ideas(json_block(R"(["draft"])") + json_block("[]"));
  EXPECT_FALSE(list.ok);
  EXPECT_THAT(list.error, HasSubstr("empty"));
}

}  // namespace
}  // namespace kernelgen
