/**
 * Tiny eval data of our own, shared by the loader tests and the command tests: LoCoMo-shaped
 * conversations whose quirks (malformed evidence, unknown ids, a bad date, no evidence) are the
 * real data's, in miniature.
 */
import type { LocomoConversation } from '../../src/locomo.js';

/** A tiny LoCoMo-shaped corpus of our own: `n` identical conversations (so a leak would match). */
export function tinyLocomo(n: number): LocomoConversation[] {
  return Array.from({ length: n }, (_, i) => ({
    sample_id: `tiny-${i}`,
    conversation: {
      speaker_a: 'Alice',
      speaker_b: 'Bob',
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: [
        { speaker: 'Alice', dia_id: 'D1:1', text: 'I adopted a corgi named Biscuit last week' },
        { speaker: 'Bob', dia_id: 'D1:2', text: 'Lovely! I started pottery classes downtown', blip_caption: 'a photo of a clay bowl' },
      ],
      session_2_date_time: 'not a date',
      session_2: [
        { speaker: 'Alice', dia_id: 'D2:1', text: 'Biscuit chewed my running shoes again' },
        { speaker: 'Bob', dia_id: 'D2:2', text: 'My pottery vase cracked in the kiln' },
      ],
    },
    qa: [
      { question: "What is the name of Alice's corgi?", evidence: ['D1:1'], category: 4 },
      { question: "What happened to Bob's vase in the kiln?", evidence: ['D:2:02'], category: 1 },
      { question: 'What did Biscuit do?', evidence: ['D1:1; D2:1'], category: 1 },
      { question: 'Which classes did Bob start?', evidence: ['D', 'D1:2', 'D9:9'], category: 2 },
      { question: 'What is the weather like?', evidence: [], category: 5 },
    ],
  }));
}
