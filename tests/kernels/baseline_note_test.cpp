#include <gtest/gtest.h>

#include "kernels/baseline.hpp"

namespace r4::kernels {

TEST(BaselineNote, WritesAndReadsBackTheChoice) {
  const AlgoHint h{2, 6, "cuBLASLt 130100"};
  for (bool hinted : {false, true}) {
    const auto note = algo_note(h, hinted);
    EXPECT_EQ(note.find("(an earlier run's choice)") != std::string::npos, hinted) << note;
    const auto back = parse_algo_note("M padded to 16; " + note);  // found inside a longer note
    ASSERT_TRUE(back) << note;
    EXPECT_EQ(back->index, 2);
    EXPECT_EQ(back->found, 6);
    EXPECT_EQ(back->library, "cuBLASLt 130100");
  }
}

TEST(BaselineNote, NotesThatSayNoChoiceGiveNoHint) {
  // Written before the library version was recorded (the committed H200 run's notes).
  EXPECT_FALSE(parse_algo_note("cuBLASLt algo 1 of the heuristic's top 6"));
  EXPECT_FALSE(parse_algo_note("no cuBLASLt algorithm (status 15, M=1)"));
  EXPECT_FALSE(parse_algo_note(""));
  EXPECT_FALSE(
      parse_algo_note("cuBLASLt 130100 algo 6 of the heuristic's top 6"));  // index >= found
  EXPECT_FALSE(parse_algo_note("cuBLASLt 130100 algo 99999999999 of the heuristic's top 6"));
}

}  // namespace r4::kernels
