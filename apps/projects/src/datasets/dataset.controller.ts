import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { EvaluateDatasetCommand, ListEvaluationsCommand, ScannerSubjects, StageDatasetCommand } from '@bastion/contracts';
import { DatasetService } from './dataset.service';

@Controller()
export class DatasetController {
  constructor(private readonly datasets: DatasetService) {}

  @MessagePattern(ScannerSubjects.stageDataset)
  stage(@Payload() cmd: StageDatasetCommand) {
    return this.datasets.stage(cmd);
  }

  @MessagePattern(ScannerSubjects.evaluate)
  evaluate(@Payload() cmd: EvaluateDatasetCommand) {
    return this.datasets.evaluate(cmd);
  }

  @MessagePattern(ScannerSubjects.listEvaluations)
  listEvaluations(@Payload() cmd: ListEvaluationsCommand) {
    return this.datasets.listEvaluations(cmd);
  }
}
